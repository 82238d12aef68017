//! Where the seeds' children run: every DDS run and every rclcpp program in a network namespace
//! of its own, and rclcpp's programs in the environment the peer's `env.sh` gives.
//!
//! - **The network**: `unshare --net` (as root), or `unshare --user --map-root-user --net`
//!   where that is refused, with the namespace's loopback brought up, then the program. Inside,
//!   DDS is alone: rcl's default domain, discovery on the loopback, no configured peers and no
//!   Cyclone configuration from this environment; it reaches no other ROS 2 node whatever domain
//!   the machine's nodes use, and nothing outside hears it. Shared memory stays the host's.
//!   Which of the two works is probed once per process. Where neither does, the caller says
//!   what it skips, or runs on the host in a domain of its own.
//! - **The peer's environment**: what `source env.sh BUILD` exports, computed here from the
//!   install's folder as the script computes it and set on the child alone, so that no shell
//!   runs between this program and the peer's.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use tacto_launch::supervise::child_command;

/// The DDS domain inside a namespace, where the run is alone: rcl's default.
pub(super) const NAMESPACED_DOMAIN: &str = "0";

/// `sh -c` script that `unshare` runs in the new namespace: its loopback up, then the command
/// given after it (`exec`: the child's process id is the program's).
const IN_NAMESPACE: &str = "ip link set lo up && exec \"$@\"";

/// The network a seed's DDS child gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Network {
    /// A network namespace of its own; `user`: inside a user namespace too (not root), where
    /// real-time scheduling is refused.
    Namespace {
        /// Whether a user namespace was needed.
        user: bool,
    },
    /// No namespace can be made here: why.
    Refused(String),
}

impl Network {
    /// The first that works on this machine, probed on first use.
    pub(super) fn here() -> &'static Network {
        static HERE: OnceLock<Network> = OnceLock::new();
        HERE.get_or_init(Network::probe)
    }

    fn probe() -> Network {
        let mut refused = Vec::new();
        for user in [false, true] {
            let network = Network::Namespace { user };
            let Some(mut command) = network.command(Path::new("true"), std::iter::empty::<&str>())
            else {
                continue;
            };
            let output = command.stdin(Stdio::null()).stdout(Stdio::null()).output();
            match output {
                Ok(out) if out.status.success() => return network,
                Ok(out) => refused.push(format!(
                    "{} failed ({}): {}",
                    network.unshare_args().join(" "),
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                )),
                Err(e) => refused.push(format!("cannot run unshare: {e}")),
            }
        }
        Network::Refused(format!("no network namespace: {}", refused.join("; ")))
    }

    /// Why no namespace can be made here, if none can.
    pub(super) fn refused(&self) -> Option<&str> {
        match self {
            Network::Namespace { .. } => None,
            Network::Refused(why) => Some(why),
        }
    }

    fn unshare_args(&self) -> Vec<&'static str> {
        match self {
            Network::Namespace { user: false } => vec!["unshare", "--net"],
            Network::Namespace { user: true } => {
                vec!["unshare", "--user", "--map-root-user", "--net"]
            }
            Network::Refused(_) => Vec::new(),
        }
    }

    /// A command that runs `program` with `args` in a network namespace of its own, alone on
    /// DDS there, and dies with this process; `None` where no namespace can be made.
    pub(super) fn command<I, S>(&self, program: &Path, args: I) -> Option<Command>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let unshare = self.unshare_args();
        let (first, rest) = unshare.split_first()?;
        let mut command = child_command(Path::new(first));
        command
            .args(rest)
            .args(["--", "sh", "-c", IN_NAMESPACE, "sh"])
            .arg(program)
            .args(args)
            .env("ROS_DOMAIN_ID", NAMESPACED_DOMAIN)
            .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
            .env_remove("ROS_STATIC_PEERS")
            .env_remove("CYCLONEDDS_URI");
        Some(command)
    }

    /// A sentence for a report: where the runs were.
    pub(super) fn describe(&self) -> String {
        match self {
            Network::Namespace { user: false } => {
                "each in a network namespace of its own (unshare --net), its loopback up".into()
            }
            Network::Namespace { user: true } => {
                "each in a user and network namespace of its own (unshare --user \
                 --map-root-user --net), its loopback up; real-time scheduling is refused there"
                    .into()
            }
            Network::Refused(why) => why.clone(),
        }
    }
}

/// The variables `source env.sh BUILD` exports for the peer's install at `root` (its
/// `rclcpp-jazzy` folder), each path list prepended to what this environment has, as the
/// script does. `build`: the reference-system build on the paths (`crunch0`, `upstream`), none
/// for `env.sh none`.
pub(super) fn peer_environment(root: &Path, build: Option<&str>) -> Vec<(&'static str, OsString)> {
    // env.sh's order: chatter, perf, the reference-system build, core.
    let mut prefixes: Vec<PathBuf> = vec![root.join("chatter"), root.join("perf")];
    prefixes.extend(build.map(|b| root.join(format!("refsys_{b}"))));
    prefixes.push(root.join("core"));
    let joined = |paths: Vec<PathBuf>, variable: &str| {
        let inherited: Vec<PathBuf> = (std::env::var_os(variable).iter())
            .flat_map(std::env::split_paths)
            .collect();
        std::env::join_paths(paths.into_iter().chain(inherited)).unwrap_or_default()
    };
    let libs = prefixes.iter().map(|p| p.join("lib")).collect();
    let bins = (prefixes.iter().map(|p| p.join("bin")))
        .filter(|b| b.is_dir())
        .collect();
    vec![
        (
            "AMENT_PREFIX_PATH",
            joined(prefixes.clone(), "AMENT_PREFIX_PATH"),
        ),
        ("LD_LIBRARY_PATH", joined(libs, "LD_LIBRARY_PATH")),
        ("PATH", joined(bins, "PATH")),
        ("ROS_DISTRO", "jazzy".into()),
        ("ROS_VERSION", "2".into()),
        ("ROS_PYTHON_VERSION", "3".into()),
        ("RMW_IMPLEMENTATION", "rmw_cyclonedds_cpp".into()),
        ("RCLCPP_PEER", root.into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(env: &[(&'static str, OsString)], name: &str) -> String {
        (env.iter().find(|(n, _)| *n == name))
            .map(|(_, v)| v.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    #[test]
    fn the_peers_environment_is_env_shs_for_the_install_and_build() {
        let root = Path::new("/opt/peers/rclcpp-jazzy");
        let none = peer_environment(root, None);
        assert!(
            get(&none, "AMENT_PREFIX_PATH").starts_with(
                "/opt/peers/rclcpp-jazzy/chatter:/opt/peers/rclcpp-jazzy/perf:\
                 /opt/peers/rclcpp-jazzy/core"
            ),
            "{}",
            get(&none, "AMENT_PREFIX_PATH")
        );
        assert!(get(&none, "LD_LIBRARY_PATH").starts_with("/opt/peers/rclcpp-jazzy/chatter/lib:"));
        assert_eq!(get(&none, "RMW_IMPLEMENTATION"), "rmw_cyclonedds_cpp");
        assert_eq!(get(&none, "RCLCPP_PEER"), "/opt/peers/rclcpp-jazzy");
        let crunch0 = peer_environment(root, Some("crunch0"));
        assert!(
            get(&crunch0, "LD_LIBRARY_PATH").starts_with(
                "/opt/peers/rclcpp-jazzy/chatter/lib:/opt/peers/rclcpp-jazzy/perf/lib:\
                 /opt/peers/rclcpp-jazzy/refsys_crunch0/lib:/opt/peers/rclcpp-jazzy/core/lib"
            ),
            "{}",
            get(&crunch0, "LD_LIBRARY_PATH")
        );
    }

    #[test]
    fn a_namespaced_command_runs_the_program_alone_on_dds_and_none_is_made_where_refused() {
        let network = Network::Namespace { user: true };
        let command = network.command(Path::new("/bin/prog"), ["a", "b"]).unwrap();
        let args: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(command.get_program(), "unshare");
        assert_eq!(
            args,
            [
                "--user",
                "--map-root-user",
                "--net",
                "--",
                "sh",
                "-c",
                IN_NAMESPACE,
                "sh",
                "/bin/prog",
                "a",
                "b"
            ]
        );
        let env: Vec<(&OsStr, Option<&OsStr>)> = command.get_envs().collect();
        assert!(env.contains(&(OsStr::new("ROS_DOMAIN_ID"), Some(OsStr::new("0")))));
        assert!(env.contains(&(OsStr::new("CYCLONEDDS_URI"), None)));
        let refused = Network::Refused("no unshare".into());
        assert!(refused.command(Path::new("/bin/prog"), ["a"]).is_none());
        assert_eq!(refused.refused(), Some("no unshare"));
    }
}
