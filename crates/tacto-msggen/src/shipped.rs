//! The interface packages of `tacto-msgs` (`std_msgs`, `geometry_msgs`, ...) and tacto's own
//! `tacto_msgs` (the executor stats), embedded: their `.msg`/`.srv`/`.action` texts, and the type
//! descriptions that hashes of types using them need.

use crate::parse;
use crate::type_hash::TypeDescriptions;

include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

/// Adds the description of every shipped type (and of the types each service and action
/// derives) to `types`.
///
/// # Examples
/// ```
/// let mut types = tacto_msggen::type_hash::TypeDescriptions::new();
/// tacto_msggen::shipped::add_descriptions(&mut types);
/// assert!(types.hash("geometry_msgs/msg/PoseStamped").is_ok());
/// assert!(types.hash("example_interfaces/action/Fibonacci_SendGoal").is_ok());
/// ```
pub fn add_descriptions(types: &mut TypeDescriptions) {
    for &(package, kind, name, text) in SHIPPED {
        // The shipped files are part of this crate and parse (the generator of tacto-msgs
        // checks them on every build).
        match kind {
            "msg" => {
                let def = parse::parse_message(text).expect("a shipped message parses");
                types.add_message(package, name, &def);
            }
            "srv" => {
                let (request, response) =
                    parse::parse_service(text).expect("a shipped service parses");
                types.add_service(package, name, &request, &response);
            }
            _ => {
                let action = parse::parse_action(text).expect("a shipped action parses");
                types.add_action(
                    package,
                    name,
                    &action.goal,
                    &action.result,
                    &action.feedback,
                );
            }
        }
    }
}
