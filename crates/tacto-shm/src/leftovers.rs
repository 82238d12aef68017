//! What a process killed at the wrong moment leaves behind that iceoryx2 (0.10) cannot remove
//! itself, and that would otherwise fail or hang every process of the host that meets it:
//!
//! - a service's dynamic config segment created but never sized (killed between creating the
//!   shared memory and giving it a size): iceoryx2 opens a segment in a loop until it has a
//!   size, without a timeout, so every open of that service, and every dead-node cleanup of a
//!   node registered with it (each node's creation and drop runs one), hangs forever;
//! - a node's file never finished (killed while creating its details or the tag that marks
//!   it registered with a service or a port): iceoryx2's cleanup does not see it, removes the
//!   rest, then fails to remove the node's directory, at every cleanup from then on, so such
//!   dead nodes pile up and make every node's creation slower.
//!
//! Both are told from live work by iceoryx2's own rule: what is still unfinished after its
//! `creation_timeout` (1 s by default) belongs to a creator that is gone.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use iceoryx2::config::Config;
use iceoryx2::node::{Node, NodeState, NodeView};
use iceoryx2::prelude::CallbackProgression;

use crate::node::Ipc;

/// Where Linux keeps POSIX shared memory.
const SHM_DIR: &str = "/dev/shm";

/// How often an unsized segment is looked at again while it is younger than the creation
/// timeout.
const RECHECK: Duration = Duration::from_millis(10);

/// Removes the dynamic config segments of this host's services (of `config`'s prefix) that
/// have no size and are older than the creation timeout; returns how many.
///
/// A segment without a size that is younger is looked at again until it has a size (its
/// creator sizes it right after creating it) or reaches that age, so this returns within
/// about one creation timeout.
pub(crate) fn remove_unsized_segments(config: &Config) -> usize {
    let global = &config.global;
    let prefix = global.prefix.to_string();
    let suffix = global.service.dynamic_config_storage_suffix.to_string();
    let Ok(entries) = std::fs::read_dir(SHM_DIR) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(&suffix) {
            removed += usize::from(remove_if_never_sized(
                &entry.path(),
                global.creation_timeout,
            ));
        }
    }
    removed
}

/// Removes the segment at `path` if it has no size once it is `timeout` old.
fn remove_if_never_sized(path: &Path, timeout: Duration) -> bool {
    loop {
        let Ok(meta) = std::fs::metadata(path) else {
            return false;
        };
        if meta.len() > 0 {
            return false;
        }
        match age(&meta) {
            Some(age) if age >= timeout => return std::fs::remove_file(path).is_ok(),
            Some(age) => std::thread::sleep(RECHECK.min(timeout - age)),
            // A time in the future: nothing says how old it is; left alone.
            None => return false,
        }
    }
}

/// How long ago the file was last written.
fn age(meta: &std::fs::Metadata) -> Option<Duration> {
    let modified = meta.modified().ok()?;
    SystemTime::now().duration_since(modified).ok()
}

/// Removes the unfinished files in the directories of this host's dead nodes; returns how many.
///
/// iceoryx2 creates each file of a node (`node.details`, `<service hash>.service_tag`,
/// `<port id>.port_tag`) writable by its owner only, writes it, then makes it read-only; a
/// file still in its first mode was never finished, and iceoryx2 does not list it. Its node is
/// dead, so no one will finish it. Removing it loses nothing: iceoryx2 creates a service or
/// port tag before the node registers with the service or the port, so an unfinished tag
/// means the node never registered, and unfinished details describe a node that never ran.
pub(crate) fn remove_unfinished_files(config: &Config) -> usize {
    let mut dead = Vec::new();
    let listed = Node::<Ipc>::list(config, |state| {
        if let NodeState::Dead(view) = &state {
            dead.push(view.id().value());
        }
        CallbackProgression::Continue
    });
    if listed.is_err() {
        return 0;
    }
    let global = &config.global;
    let nodes = std::path::PathBuf::from(global.node_dir().to_string());
    let prefix = global.prefix.to_string();
    let mut removed = 0;
    for id in dead {
        let Ok(entries) = std::fs::read_dir(nodes.join(id.to_string())) else {
            continue;
        };
        for entry in entries.flatten() {
            let unfinished = (entry.metadata().ok())
                .is_some_and(|m| m.is_file() && m.permissions().mode() & 0o777 == 0o600);
            let ours = entry.file_name().to_string_lossy().starts_with(&prefix);
            if unfinished && ours && std::fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}
