//! The names of an action's services and topics: rcl_action's `names.c`.

use std::fmt;

/// The two topics and three services an action is made of, under the action's resolved name,
/// as rcl_action names them (`rcl_action_get_goal_service_name`, ...): `<action>/_action/`
/// followed by `send_goal`, `cancel_goal`, `get_result`, `feedback` and `status`.
///
/// # Examples
/// ```
/// use tacto::action::ActionNames;
///
/// let names = ActionNames::new("/fibonacci").unwrap();
/// assert_eq!(names.send_goal(), "/fibonacci/_action/send_goal");
/// assert_eq!(names.status(), "/fibonacci/_action/status");
/// assert!(ActionNames::new("").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionNames {
    action: String,
}

/// An action name rcl_action refuses to derive names from: the empty name
/// (`RCL_RET_ACTION_NAME_INVALID`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmptyActionName;

impl fmt::Display for EmptyActionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an action name must not be empty")
    }
}

impl std::error::Error for EmptyActionName {}

impl ActionNames {
    /// The names of action `action` (its resolved name: rcl_action appends to what it is
    /// given, and checks nothing but that it is not empty).
    pub fn new(action: &str) -> Result<Self, EmptyActionName> {
        match action.is_empty() {
            true => Err(EmptyActionName),
            false => Ok(ActionNames {
                action: action.to_owned(),
            }),
        }
    }

    /// The action's name, as given.
    pub fn action(&self) -> &str {
        &self.action
    }

    /// `<action>/_action/send_goal`.
    pub fn send_goal(&self) -> String {
        self.part("send_goal")
    }

    /// `<action>/_action/cancel_goal`.
    pub fn cancel_goal(&self) -> String {
        self.part("cancel_goal")
    }

    /// `<action>/_action/get_result`.
    pub fn get_result(&self) -> String {
        self.part("get_result")
    }

    /// `<action>/_action/feedback`.
    pub fn feedback(&self) -> String {
        self.part("feedback")
    }

    /// `<action>/_action/status`.
    pub fn status(&self) -> String {
        self.part("status")
    }

    fn part(&self, suffix: &str) -> String {
        format!("{}/_action/{suffix}", self.action)
    }
}
