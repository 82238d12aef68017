//! Node components: a node kind registered by name with one line, built into whichever process
//! a launch file places it in, as rclcpp's `RCLCPP_COMPONENTS_REGISTER_NODE` and a component
//! container do.
//!
//! A component is a name and a function that builds a node's executables (publishers,
//! subscriptions, triggers, timers, services) on a node the host made: named, namespaced,
//! given its parameters and remaps from the launch file, so the function reads them as any
//! node does (`node.parameters()`, relative topic names). The host then adds the node to one of
//! its executors. The function never makes its own node, context or executor: *where* the node
//! runs (which process, which executor thread, which CPUs and priority, which transport) is the
//! launch file's business, *what* it does is the component's.
//!
//! ```
//! use tacto::msg::std_msgs::String as Text;
//! use tacto::{Context, Node};
//! use tacto_component::{BuildError, Placement, Style};
//!
//! /// Publishes `greeting` (a parameter) on `chatter` every `period_ms`.
//! fn talker(node: &mut Node, _: &Placement) -> Result<(), BuildError> {
//!     let greeting = node.parameters().declare("greeting", "hello".to_string())?;
//!     let period = node.parameters().declare("period_ms", 100_i64)?;
//!     let out = node.publisher::<Text>("chatter").create()?;
//!     let period = std::time::Duration::from_millis(period.try_into()?);
//!     node.wall_timer(period, move |_| out.publish(Text { data: greeting.clone() }))?;
//!     Ok(())
//! }
//! tacto_component::component!("demo::Talker", talker);
//!
//! let ctx = Context::new();
//! let talker = tacto_component::find("demo::Talker").unwrap();
//! let args = ["--ros-args", "-p", "greeting:=hi", "-r", "chatter:=/robot/out"];
//! let node = talker.instantiate(&ctx, None, Some("robot"), &args, Style::Polling).unwrap();
//! assert_eq!(node.fully_qualified_name(), "/robot/Talker");
//!
//! let unknown = tacto_component::find("demo::Listener").unwrap_err();
//! assert!(unknown.to_string().contains("demo::Talker"), "{unknown}");
//! ```
//!
//! # Getting a component into a process
//!
//! Rust has no stable plugin ABI, so components are not loaded from shared libraries at run
//! time: a process hosts the components that its binary links. A system is one binary (the
//! `tacto` command, or a `main` of one's own that calls the launch's process entry) that links
//! the crates of its components; each crate's `component!` lines register themselves when the
//! binary starts. A crate that the binary names nowhere is not linked at all by Rust, so name
//! it once: `use my_nodes as _;`.
//!
//! The registrations are collected with the `inventory` crate: each `component!` becomes a
//! constructor that runs before `main` and pushes a static entry on a lock-free list. It needs
//! no proc macro (nothing more to compile) and no linker section magic (`linkme`'s
//! `distributed_slice`, which needs the linker's cooperation per platform), and it is what
//! `tacto`'s own built-in nodes register with, so the bench runs the path users run.

use std::error::Error;
use std::fmt;

use tacto::{Context, Node, NodeCreateError};

#[doc(hidden)]
pub mod __private {
    pub use inventory;
}

/// What a component's build function returns when it cannot build its node: any error, which
/// the host reports with the component's and the node's names.
pub type BuildError = Box<dyn Error + Send + Sync>;

/// A component's build function: adds the node's executables to `node`, which the host made
/// with the component's name, namespace, parameters and remaps.
pub type BuildFn = fn(&mut Node, &Placement) -> Result<(), BuildError>;

/// How a node's executables should be written for the executor that will run them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A callback executor (callback, callback-mt, events): rclcpp's style, a callback per
    /// message.
    Callbacks,
    /// A wait-set or LET executor: triggers, and polling subscriptions read when the node runs.
    Polling,
}

/// What the host tells a component about where its node is placed.
#[derive(Debug, Clone)]
pub struct Placement {
    component: &'static str,
    style: Style,
}

impl Placement {
    /// The component's registered name.
    pub fn component(&self) -> &'static str {
        self.component
    }

    /// How the executor that will run the node runs it.
    pub fn style(&self) -> Style {
        self.style
    }
}

/// A registered node kind: a name and its build function. Register one with [`component!`];
/// find one with [`find`].
pub struct Component {
    name: &'static str,
    build: BuildFn,
}

impl fmt::Debug for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Component")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

inventory::collect!(Component);

/// Registers a component: its name (`"package::Kind"` by convention, as rclcpp's
/// `package::Class`) and its build function (a [`BuildFn`]). One line per node kind, anywhere in
/// a crate; the binary that links the crate hosts it.
///
/// # Examples
/// ```
/// use tacto::Node;
/// use tacto_component::{BuildError, Placement};
///
/// fn idle(_: &mut Node, _: &Placement) -> Result<(), BuildError> {
///     Ok(())
/// }
/// tacto_component::component!("demo::Idle", idle);
///
/// assert!(tacto_component::names().contains(&"demo::Idle"));
/// ```
#[macro_export]
macro_rules! component {
    ($name:literal, $build:path) => {
        $crate::__private::inventory::submit! {
            $crate::Component::new($name, $build)
        }
    };
}

impl Component {
    /// A component named `name` built by `build`; [`component!`] registers one.
    #[doc(hidden)]
    pub const fn new(name: &'static str, build: BuildFn) -> Component {
        Component { name, build }
    }

    /// Its registered name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The node name a placement gets when it gives none: the name's last `::` part
    /// (`demo::Talker` → `Talker`), as a component container names a node by its class's
    /// default.
    pub fn default_node_name(&self) -> &'static str {
        self.name.rsplit("::").next().unwrap_or(self.name)
    }

    /// Makes a node of this kind on `ctx`: named `name` (or [the default](Self::default_node_name)),
    /// in `namespace` (or `/`), with `arguments` as its own ROS arguments (`--ros-args -p ...
    /// --params-file ... -r from:=to`, as `NodeOptions::arguments`), then built by the
    /// component's function for an executor of `style`. The host adds the node to an executor.
    pub fn instantiate<S: AsRef<str>>(
        &self,
        ctx: &Context,
        name: Option<&str>,
        namespace: Option<&str>,
        arguments: &[S],
        style: Style,
    ) -> Result<Node, ComponentError> {
        let node_name = name.unwrap_or(self.default_node_name());
        let mut builder = ctx.node_builder(node_name);
        if let Some(namespace) = namespace {
            builder = builder.namespace(namespace);
        }
        if !arguments.is_empty() {
            builder = builder.arguments(arguments.iter().map(|a| a.as_ref().to_owned()));
        }
        let mut node = builder.create().map_err(|source| ComponentError::Node {
            component: self.name,
            node: node_name.to_owned(),
            source: Box::new(source),
        })?;
        let placement = Placement {
            component: self.name,
            style,
        };
        (self.build)(&mut node, &placement).map_err(|source| ComponentError::Build {
            component: self.name,
            node: node.fully_qualified_name().to_owned(),
            source,
        })?;
        Ok(node)
    }
}

/// Why a component could not be found or built.
#[derive(Debug, thiserror::Error)]
pub enum ComponentError {
    /// No linked crate registers a component of that name.
    #[error("no component {name:?} in this binary (it has: {})", known.join(", "))]
    Unknown {
        /// The name asked for.
        name: String,
        /// Every registered name, sorted.
        known: Vec<&'static str>,
    },
    /// Two linked crates register components of one name: which one runs would be an accident
    /// of link order.
    #[error("component {0:?} is registered twice in this binary")]
    Duplicate(&'static str),
    /// The node could not be made (its name, namespace or arguments were refused).
    #[error("component {component}: node {node:?}: {source}")]
    Node {
        /// The component.
        component: &'static str,
        /// The node's name.
        node: String,
        /// Why (boxed: it is large, and errors are rare).
        source: Box<NodeCreateError>,
    },
    /// The component's build function failed.
    #[error("component {component}: node {node}: {source}")]
    Build {
        /// The component.
        component: &'static str,
        /// The node's fully qualified name.
        node: String,
        /// What the build function returned.
        source: BuildError,
    },
}

/// The component registered as `name`.
pub fn find(name: &str) -> Result<&'static Component, ComponentError> {
    let mut matching = inventory::iter::<Component>().filter(|c| c.name == name);
    match (matching.next(), matching.next()) {
        (Some(component), None) => Ok(component),
        (Some(component), Some(_)) => Err(ComponentError::Duplicate(component.name)),
        (None, _) => Err(ComponentError::Unknown {
            name: name.to_owned(),
            known: names(),
        }),
    }
}

/// Every registered component's name, sorted.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<_> = inventory::iter::<Component>().map(|c| c.name).collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use tacto::msg::std_msgs::String as Text;

    fn echo(node: &mut Node, placement: &Placement) -> Result<(), BuildError> {
        let suffix = node.parameters().declare("suffix", "!".to_string())?;
        let out = node.publisher::<Text>("out").create()?;
        let style = placement.style();
        node.subscription::<Text>("in").callback(move |sample| {
            let data = format!("{}{suffix} ({style:?})", sample.data);
            out.publish(Text { data });
        })?;
        Ok(())
    }
    component!("test::Echo", echo);

    fn refuses(_: &mut Node, _: &Placement) -> Result<(), BuildError> {
        Err("the sensor is not connected".into())
    }
    component!("test::Refuses", refuses);

    fn twice(_: &mut Node, _: &Placement) -> Result<(), BuildError> {
        Ok(())
    }
    component!("test::Twice", twice);
    component!("test::Twice", twice);

    #[test]
    fn a_placed_component_gets_its_name_namespace_parameters_and_remaps() {
        let ctx = Context::new();
        let args = ["--ros-args", "-p", "suffix:=hm", "-r", "in:=/source"];
        let node = find("test::Echo")
            .unwrap()
            .instantiate(&ctx, Some("echo1"), Some("robot"), &args, Style::Callbacks)
            .unwrap();
        assert_eq!(node.fully_qualified_name(), "/robot/echo1");
        assert_eq!(node.resolve_topic_name("in").unwrap(), "/source");
        assert_eq!(node.resolve_topic_name("out").unwrap(), "/robot/out");
        assert_eq!(node.parameters().get_or("suffix", String::new()), "hm");
    }

    #[test]
    fn an_unplaced_name_defaults_to_the_kind() {
        let ctx = Context::new();
        let none: [&str; 0] = [];
        let node = find("test::Echo")
            .unwrap()
            .instantiate(&ctx, None, None, &none, Style::Polling)
            .unwrap();
        assert_eq!(node.fully_qualified_name(), "/Echo");
    }

    #[test]
    fn an_unknown_component_is_refused_listing_those_that_exist() {
        let error = find("test::Missing").unwrap_err().to_string();
        assert!(
            error.starts_with("no component \"test::Missing\" in this binary (it has: ")
                && error.contains("test::Echo, test::Refuses"),
            "{error}"
        );
    }

    #[test]
    fn a_name_registered_twice_is_refused() {
        let error = find("test::Twice").unwrap_err().to_string();
        assert_eq!(
            error,
            "component \"test::Twice\" is registered twice in this binary"
        );
    }

    #[test]
    fn a_failing_build_names_the_component_and_the_node() {
        let ctx = Context::new();
        let none: [&str; 0] = [];
        let error = find("test::Refuses")
            .unwrap()
            .instantiate(&ctx, Some("lidar"), Some("/front"), &none, Style::Polling)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "component test::Refuses: node /front/lidar: the sensor is not connected"
        );
    }

    #[test]
    fn bad_arguments_are_refused_naming_the_component() {
        let ctx = Context::new();
        let error = find("test::Echo")
            .unwrap()
            .instantiate(
                &ctx,
                None,
                None,
                &["--ros-args", "-p", "nope"],
                Style::Polling,
            )
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("component test::Echo: node \"Echo\": "),
            "{error}"
        );
    }
}
