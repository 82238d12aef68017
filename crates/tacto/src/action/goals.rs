//! An action server's goals: which it holds, in what state, which a cancel request reaches,
//! and when a finished goal's result expires — rcl_action's action-server bookkeeping.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use super::status::{GoalEvent, GoalStatus};
use crate::clock::{Time, duration_nanos};

/// A goal's id: a UUID, `unique_identifier_msgs/msg/UUID`'s 16 bytes.
///
/// # Examples
/// ```
/// use tacto::action::GoalId;
///
/// let id = GoalId::from_bytes([0xab; 16]);
/// assert_eq!(id.to_string(), "abababababababababababababababab");
/// assert!(GoalId::ZERO.is_zero());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct GoalId([u8; 16]);

impl GoalId {
    /// The all-zero id, which in a cancel request means "no particular goal".
    pub const ZERO: GoalId = GoalId([0; 16]);

    /// The id of these 16 bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        GoalId(bytes)
    }

    /// The 16 bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// Whether every byte is zero.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }

    /// A new random id: a version 4 UUID (RFC 4122) from the kernel's random source, as
    /// rclcpp's and rclpy's clients make goal ids.
    ///
    /// # Errors
    /// If neither `getrandom(2)` nor `/dev/urandom` gives 16 bytes.
    pub fn random() -> std::io::Result<GoalId> {
        let mut bytes = [0u8; 16];
        fill_random(&mut bytes)?;
        bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
        bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
        Ok(GoalId(bytes))
    }
}

/// Fills `bytes` from `getrandom(2)`, or `/dev/urandom` where the call is missing.
fn fill_random(bytes: &mut [u8; 16]) -> std::io::Result<()> {
    loop {
        // SAFETY: the pointer and length are those of `bytes`, which is writable and lives
        // through the call; the kernel writes at most that many bytes.
        let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
        if n == bytes.len() as isize {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        match error.raw_os_error() {
            // 16 bytes come whole once the pool is ready; a signal may still interrupt the wait.
            Some(libc::EINTR) => continue,
            Some(libc::ENOSYS) => break,
            _ if n >= 0 => continue,
            _ => return Err(error),
        }
    }
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(bytes)
}

impl fmt::Display for GoalId {
    /// 32 lowercase hex digits, as `ros2 action send_goal` prints a goal's id.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for GoalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GoalId({self})")
    }
}

/// A goal's id and the time it was accepted: `action_msgs/msg/GoalInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GoalInfo {
    /// The goal's id.
    pub id: GoalId,
    /// When the server accepted it; in a cancel request, "goals accepted at or before".
    pub stamp: Time,
}

/// Why a goal was not accepted into [`Goals`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcceptError {
    /// The server already holds a goal of this id (rcl_action refuses it too).
    Exists(GoalId),
    /// As many goals as the server may hold are still active.
    Full {
        /// The bound: [`Goals::capacity`].
        capacity: usize,
    },
}

impl fmt::Display for AcceptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AcceptError::Exists(id) => write!(f, "goal ID {id} already exists"),
            AcceptError::Full { capacity } => write!(
                f,
                "the action server already runs {capacity} goals, its bound; a goal is \
                 accepted again when one ends"
            ),
        }
    }
}

impl std::error::Error for AcceptError {}

/// Why a goal's state was not changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateError {
    /// The server holds no goal of this id (never accepted, or its result expired).
    Unknown(GoalId),
    /// The goal's state has no transition on this event (rcl_action's
    /// `RCL_RET_ACTION_GOAL_EVENT_INVALID`); the goal keeps its state.
    Invalid {
        /// The goal's id.
        id: GoalId,
        /// Its state, unchanged.
        status: GoalStatus,
        /// The event refused.
        event: GoalEvent,
    },
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::Unknown(id) => write!(f, "no goal of ID {id}"),
            UpdateError::Invalid { id, status, event } => write!(
                f,
                "goal {id} is {status}: it has no transition on the event {event:?}"
            ),
        }
    }
}

impl std::error::Error for UpdateError {}

/// `action_msgs/srv/CancelGoal`'s `return_code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CancelCode {
    /// `ERROR_NONE` (0): the goals listed are canceling.
    None,
    /// `ERROR_REJECTED` (1): the server refused to cancel every goal asked for.
    Rejected,
    /// `ERROR_UNKNOWN_GOAL_ID` (2): the one goal asked for is not known.
    UnknownGoalId,
    /// `ERROR_GOAL_TERMINATED` (3): the one goal asked for has ended.
    GoalTerminated,
}

impl CancelCode {
    /// The `action_msgs/srv/CancelGoal` response's code, 0 to 3.
    pub fn id(self) -> i8 {
        match self {
            CancelCode::None => 0,
            CancelCode::Rejected => 1,
            CancelCode::UnknownGoalId => 2,
            CancelCode::GoalTerminated => 3,
        }
    }

    /// The code of a response's `return_code`; a code past the four known reads as
    /// `ERROR_GOAL_TERMINATED`'s successor would: unknown, so as rejected.
    pub fn from_id(id: i8) -> CancelCode {
        match id {
            0 => CancelCode::None,
            2 => CancelCode::UnknownGoalId,
            3 => CancelCode::GoalTerminated,
            _ => CancelCode::Rejected,
        }
    }
}

/// The goals a cancel request reaches, and the code to answer with: rcl_action's
/// `rcl_action_process_cancel_request`. Nothing changes state until the server has decided
/// ([`Goals::update`] with [`GoalEvent::CancelGoal`] for those it accepts to cancel).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelReach {
    /// The code, before the server's own decisions.
    pub code: CancelCode,
    /// The goals reached, in the order they were accepted.
    pub goals: Vec<GoalInfo>,
}

#[derive(Debug, Clone)]
struct Entry {
    info: GoalInfo,
    status: GoalStatus,
}

/// The goals an action server holds: accepted and running, or ended with their results kept
/// until they expire. As rcl_action keeps them, in the order they were accepted.
///
/// - A goal's result is kept for [`result_timeout`](Self::result_timeout) (10 s by default,
///   as rcl_action's) counted from the goal's **acceptance stamp**, as rcl_action counts it:
///   a goal that ran longer than the timeout expires as soon as it ends and
///   [`expire`](Self::expire) runs.
/// - **Bounded:** at most [`capacity`](Self::capacity) goals. A new goal past it evicts the
///   oldest ended goal (its result is gone early; counted in
///   [`evicted`](Self::evicted)); with every held goal still active, it is refused
///   ([`AcceptError::Full`]).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tacto::Time;
/// use tacto::action::{GoalEvent, GoalId, GoalStatus, Goals};
///
/// let mut goals = Goals::new(8, Duration::from_secs(10));
/// let id = GoalId::from_bytes([1; 16]);
/// goals.accept(id, Time::from_nanos(1_000_000_000)).unwrap();
/// goals.update(&id, GoalEvent::Execute).unwrap();
/// goals.update(&id, GoalEvent::Succeed).unwrap();
/// assert_eq!(goals.status(&id), Some(GoalStatus::Succeeded));
/// // Eleven seconds after its acceptance, its result is gone.
/// let expired = goals.expire(Time::from_nanos(12_000_000_000));
/// assert_eq!(expired[0].id, id);
/// assert_eq!(goals.status(&id), None);
/// ```
#[derive(Debug, Clone)]
pub struct Goals {
    entries: VecDeque<Entry>,
    capacity: usize,
    result_timeout: Duration,
    evicted: u64,
}

impl Goals {
    /// rcl_action's default result timeout: 10 s.
    pub const DEFAULT_RESULT_TIMEOUT: Duration = Duration::from_secs(10);

    /// Goals bounded by `capacity` (at least 1), results kept `result_timeout`.
    pub fn new(capacity: usize, result_timeout: Duration) -> Self {
        let capacity = capacity.max(1);
        Goals {
            entries: VecDeque::with_capacity(capacity.min(64)),
            capacity,
            result_timeout,
            evicted: 0,
        }
    }

    /// The most goals held at once.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How long an ended goal's result is kept, from the goal's acceptance.
    pub fn result_timeout(&self) -> Duration {
        self.result_timeout
    }

    /// Ended goals dropped before their time to make room for new ones.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// The goals held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no goal is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Accepts goal `id` at `now` (its stamp): rcl_action's `rcl_action_accept_new_goal`.
    pub fn accept(&mut self, id: GoalId, now: Time) -> Result<GoalInfo, AcceptError> {
        if self.find(&id).is_some() {
            return Err(AcceptError::Exists(id));
        }
        if self.entries.len() >= self.capacity {
            let oldest_ended = self
                .entries
                .iter()
                .position(|e| !e.status.is_active())
                .ok_or(AcceptError::Full {
                    capacity: self.capacity,
                })?;
            self.entries.remove(oldest_ended);
            self.evicted += 1;
        }
        let info = GoalInfo { id, stamp: now };
        self.entries.push_back(Entry {
            info,
            status: GoalStatus::Accepted,
        });
        Ok(info)
    }

    /// The state of goal `id`, if it is held.
    pub fn status(&self, id: &GoalId) -> Option<GoalStatus> {
        self.find(id).map(|i| self.entries[i].status)
    }

    /// The id and stamp of goal `id`, if it is held.
    pub fn info(&self, id: &GoalId) -> Option<GoalInfo> {
        self.find(id).map(|i| self.entries[i].info)
    }

    /// Moves goal `id` on by `event`: rcl_action's `rcl_action_update_goal_state`.
    pub fn update(&mut self, id: &GoalId, event: GoalEvent) -> Result<GoalStatus, UpdateError> {
        let index = self.find(id).ok_or(UpdateError::Unknown(*id))?;
        let entry = &mut self.entries[index];
        entry.status = entry.status.on(event).ok_or(UpdateError::Invalid {
            id: *id,
            status: entry.status,
            event,
        })?;
        Ok(entry.status)
    }

    /// The goals a cancel request for `request` reaches, as rcl_action's
    /// `rcl_action_process_cancel_request` decides:
    ///
    /// | request id | request stamp | reaches |
    /// |---|---|---|
    /// | zero | zero | every cancelable goal (code none, even if there is none) |
    /// | a goal's | zero | that goal if cancelable (none), else terminated or unknown id |
    /// | zero | t | every cancelable goal accepted at or before t |
    /// | a goal's | t | those, and that goal if cancelable |
    pub fn cancel_reach(&self, request: &GoalInfo) -> CancelReach {
        let cancelable = |e: &&Entry| e.status.is_cancelable();
        if !request.id.is_zero() && request.stamp == Time::ZERO {
            let (code, goals) = match self.find(&request.id).map(|i| &self.entries[i]) {
                None => (CancelCode::UnknownGoalId, Vec::new()),
                Some(e) if e.status.is_cancelable() => (CancelCode::None, vec![e.info]),
                Some(_) => (CancelCode::GoalTerminated, Vec::new()),
            };
            return CancelReach { code, goals };
        }
        let before = if request.id.is_zero() && request.stamp == Time::ZERO {
            Time::from_nanos(i64::MAX)
        } else {
            request.stamp
        };
        let goals = self
            .entries
            .iter()
            .filter(cancelable)
            .filter(|e| e.info.stamp <= before || e.info.id == request.id)
            .map(|e| e.info)
            .collect();
        CancelReach {
            code: CancelCode::None,
            goals,
        }
    }

    /// Drops the ended goals whose results expired by `now`, and returns them (rcl_action's
    /// `rcl_action_expire_goals`).
    pub fn expire(&mut self, now: Time) -> Vec<GoalInfo> {
        let timeout = duration_nanos(self.result_timeout);
        let mut expired = Vec::new();
        self.entries.retain(|e| {
            let gone = !e.status.is_active()
                && now.as_nanos().saturating_sub(e.info.stamp.as_nanos()) > timeout;
            if gone {
                expired.push(e.info);
            }
            !gone
        });
        expired
    }

    /// How long from `now` until the next ended goal expires, or `None` if no goal has ended:
    /// the period rcl_action gives its expiry timer (zero if time went backwards).
    pub fn next_expiry(&self, now: Time) -> Option<Duration> {
        let timeout = duration_nanos(self.result_timeout);
        self.entries
            .iter()
            .filter(|e| !e.status.is_active())
            .map(|e| timeout.saturating_sub(now.as_nanos().saturating_sub(e.info.stamp.as_nanos())))
            .min()
            .map(|left| Duration::from_nanos(left.max(0) as u64))
    }

    /// Every goal held and its state, in the order they were accepted: the status topic's
    /// `status_list` (rcl_action's `rcl_action_get_goal_status_array`).
    pub fn statuses(&self) -> impl Iterator<Item = (GoalInfo, GoalStatus)> + '_ {
        self.entries.iter().map(|e| (e.info, e.status))
    }

    fn find(&self, id: &GoalId) -> Option<usize> {
        self.entries.iter().position(|e| e.info.id == *id)
    }
}
