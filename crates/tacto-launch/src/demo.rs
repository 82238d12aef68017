//! Two components the `tacto` command ships, to try launch files with and to test them: a
//! talker and a listener on `std_msgs/String`, as ROS 2's `demo_nodes_cpp` has
//! (`demo_nodes_cpp::Talker`, `demo_nodes_cpp::Listener`).
//!
//! | component | does | parameters |
//! |---|---|---|
//! | `demo::Talker` | publishes `"<greeting> <n>"` on `chatter`, n from 0, every `period_ms` | `greeting` ("hello"), `period_ms` (100), `count` (0: for ever), `managed` (false: true makes it a managed node that publishes only while active) |
//! | `demo::Listener` | prints `<node> heard: <data>` for each message on `chatter` | none |

use std::time::Duration;

use tacto::lifecycle::Callbacks;
use tacto::msg::std_msgs::String as Text;
use tacto::{History, Node, Trigger};
use tacto_component::{BuildError, Placement, Style, component};

component!("demo::Talker", talker);
component!("demo::Listener", listener);

/// The lifecycle of a managed talker: every transition succeeds; the gate does the rest
/// (executables run and publishers send only while active).
struct AlwaysSucceeds;

impl Callbacks for AlwaysSucceeds {}

fn talker(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
    let parameters = node.parameters().clone();
    let greeting = parameters.declare("greeting", "hello".to_string())?;
    let period_ms = parameters.declare("period_ms", 100_i64)?;
    let count = parameters.declare("count", 0_i64)?;
    let managed = parameters.declare("managed", false)?;
    let period = u64::try_from(period_ms)
        .ok()
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
        .ok_or_else(|| format!("parameter period_ms: {period_ms}: give more than 0"))?;
    let count = u64::try_from(count)
        .map_err(|_| format!("parameter count: {count}: give 0 (for ever) or more"))?;
    let lifecycle = match managed {
        true => Some(node.manage(AlwaysSucceeds)?),
        false => None,
    };
    let out = node.publisher::<Text>("chatter").create()?;
    let mut sent = 0_u64;
    node.wall_timer(period, move |_| {
        // Held by the timer, so that the node stays managed as long as it runs.
        let _ = &lifecycle;
        if count == 0 || sent < count {
            out.publish(Text {
                data: format!("{greeting} {sent}"),
            });
            sent += 1;
        }
    })?;
    Ok(())
}

fn listener(node: &mut Node, placement: &Placement) -> Result<(), BuildError> {
    let name = node.fully_qualified_name().to_owned();
    match placement.style() {
        Style::Callbacks => {
            node.subscription::<Text>("chatter")
                .history(History::KeepLast(100))
                .callback(move |sample| println!("{name} heard: {}", sample.data))?;
        }
        Style::Polling => {
            let input = (node.subscription::<Text>("chatter"))
                .history(History::KeepLast(100))
                .create()?;
            let trigger = Trigger::on(&input);
            node.execute(trigger, move |_| {
                for sample in input.take_all() {
                    println!("{name} heard: {}", sample.data);
                }
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tacto::{Context, Executor, WaitSetExecutor};

    #[test]
    fn a_talker_is_heard_by_a_listener_in_one_context() {
        let ctx = Context::new();
        let args = ["--ros-args", "-p", "period_ms:=1", "-p", "count:=3"];
        let talker = (tacto_component::find("demo::Talker").unwrap())
            .instantiate(&ctx, Some("talker"), Some("demo"), &args, Style::Polling)
            .unwrap();
        let mut probe = ctx.node("probe").unwrap();
        let heard = (probe.subscription::<Text>("/demo/chatter"))
            .history(History::KeepLast(10))
            .create()
            .unwrap();
        let mut executor = WaitSetExecutor::new().unwrap();
        executor.add(talker).unwrap();
        executor.spin_for(Duration::from_millis(100)).unwrap();
        let data: Vec<String> = heard.take_all().map(|s| s.data.clone()).collect();
        assert_eq!(data, ["hello 0", "hello 1", "hello 2"]);
    }

    #[test]
    fn a_period_of_zero_is_refused_naming_the_parameter() {
        let ctx = Context::new();
        let error = (tacto_component::find("demo::Talker").unwrap())
            .instantiate(
                &ctx,
                None,
                None,
                &["--ros-args", "-p", "period_ms:=0"],
                Style::Polling,
            )
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "component demo::Talker: node /Talker: parameter period_ms: 0: give more than 0"
        );
    }
}
