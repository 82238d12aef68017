//! A system of one's own: a component written here (`example::Shouter`, which republishes what
//! it hears on `chatter` in capitals on `loud`) in a launcher binary that also hosts the
//! components `tacto` ships (docs/components.md).
//!
//! ```sh
//! cargo run -p tacto-launch --example component_system -- crates/tacto-launch/examples/shouting.toml
//! ```

use tacto::msg::std_msgs::String as Text;
use tacto::{Node, Trigger};
use tacto_component::{BuildError, Placement, Style, component};

component!("example::Shouter", shouter);

/// Republishes each message on `chatter` in capitals on `loud`.
fn shouter(node: &mut Node, placement: &Placement) -> Result<(), BuildError> {
    let loud = node.publisher::<Text>("loud").create()?;
    let shout = move |data: &str| {
        loud.publish(Text {
            data: data.to_uppercase(),
        })
    };
    match placement.style() {
        Style::Callbacks => {
            node.subscription::<Text>("chatter")
                .callback(move |sample| shout(&sample.data))?;
        }
        Style::Polling => {
            let input = node.subscription::<Text>("chatter").create()?;
            node.execute(Trigger::on(&input), move |_| {
                for sample in input.take_all() {
                    shout(&sample.data);
                }
            })?;
        }
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    tacto_launch::program::main()
}
