//! Reading parameters from running code: typed handles and change watches.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwap;

use super::value::{ParameterData, ParameterValue};
use crate::subscription::{Input, Listener};
use crate::transport::LinkError;

/// Where a parameter's handles read its value: the value and a count of its sets.
#[derive(Debug)]
pub(super) struct Slot {
    /// Bumped after each new value is stored (release), read first by handles (acquire): a
    /// handle that sees a count it has seen has the current value.
    version: AtomicU64,
    value: ArcSwap<ParameterValue>,
    /// Cleared when the parameter is undeclared; a parameter declared again has a new slot.
    declared: AtomicBool,
}

impl Slot {
    pub(super) fn new(value: &ParameterValue) -> Self {
        Slot {
            version: AtomicU64::new(0),
            value: ArcSwap::from_pointee(value.clone()),
            declared: AtomicBool::new(true),
        }
    }

    /// Stores a new value; called under the store's lock, so sets are published in order.
    pub(super) fn publish(&self, value: &ParameterValue) {
        self.value.store(Arc::new(value.clone()));
        self.version.fetch_add(1, Ordering::Release);
    }

    pub(super) fn retire(&self) {
        self.declared.store(false, Ordering::Release);
        self.version.fetch_add(1, Ordering::Release);
    }
}

/// A typed view of one parameter for code that runs often: [`get`](Self::get) costs an
/// atomic load and a compare while the parameter is unchanged, and returns the new value
/// after a successful set (from any thread), converted once.
///
/// Create one with [`ParameterStore::handle`](crate::params::ParameterStore::handle). A
/// handle follows values of its type `T`: if a dynamically typed parameter is set to another
/// type, or undeclared, the handle keeps its last value of type `T`
/// ([`is_declared`](Self::is_declared) tells the second case). A parameter declared again
/// after an undeclare needs a new handle.
///
/// # Examples
/// ```
/// use tacto::params::{Parameter, ParameterStore};
///
/// let store = ParameterStore::builder("/controller").build().unwrap();
/// store.declare("gain", 0.5).unwrap();
/// let mut gain = store.handle::<f64>("gain").unwrap();
/// assert_eq!(*gain.get(), 0.5);
///
/// // A parameter service's thread sets it:
/// let setter = store.clone();
/// std::thread::spawn(move || setter.set_parameter(Parameter::new("gain", 0.8)))
///     .join()
///     .unwrap();
/// assert!(gain.changed());
/// assert_eq!(*gain.get(), 0.8);
/// assert!(!gain.changed());
/// ```
pub struct ParameterHandle<T> {
    slot: Arc<Slot>,
    seen: u64,
    value: T,
    name: Arc<str>,
}

impl<T: fmt::Debug> fmt::Debug for ParameterHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParameterHandle")
            .field("name", &self.name)
            .field("value", &self.value)
            .finish()
    }
}

impl<T: ParameterData> ParameterHandle<T> {
    pub(super) fn new(name: &str, slot: Arc<Slot>, value: T) -> Self {
        // Read before the value the caller took under the store's lock, which no set can
        // have followed: the next set moves it.
        let seen = slot.version.load(Ordering::Acquire);
        ParameterHandle {
            slot,
            seen,
            value,
            name: name.into(),
        }
    }

    /// The parameter's current value.
    #[inline]
    pub fn get(&mut self) -> &T {
        let version = self.slot.version.load(Ordering::Acquire);
        if version != self.seen {
            self.refresh(version);
        }
        &self.value
    }

    #[cold]
    #[inline(never)]
    fn refresh(&mut self, version: u64) {
        // The value stored before `version` or a later one; a later one's count is seen on the
        // next call, which reads it again: never stale, at worst converted twice.
        if let Some(value) = T::from_value(&self.slot.value.load()) {
            self.value = value;
        }
        self.seen = version;
    }

    /// True if the parameter was set (or undeclared) since [`get`](Self::get) last returned;
    /// changes nothing.
    #[inline]
    pub fn changed(&self) -> bool {
        self.slot.version.load(Ordering::Acquire) != self.seen
    }

    /// False once the parameter was undeclared.
    pub fn is_declared(&self) -> bool {
        self.slot.declared.load(Ordering::Acquire)
    }

    /// The parameter's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A watch's state, shared with the store that tells it of changes.
#[derive(Debug)]
pub(super) struct WatchShared {
    /// The names watched, or every parameter.
    names: Option<Vec<String>>,
    /// Changes heard, each a declare, set or undeclare touching a watched parameter.
    arrivals: AtomicU64,
    /// `arrivals` when the node last looked.
    seen: AtomicU64,
    listener: OnceLock<Arc<dyn Listener>>,
}

impl WatchShared {
    pub(super) fn new(names: Option<Vec<String>>) -> Self {
        WatchShared {
            names,
            arrivals: AtomicU64::new(0),
            seen: AtomicU64::new(0),
            listener: OnceLock::new(),
        }
    }

    /// Told by the store, on the setter's thread after its locks, of a change of `names`.
    pub(super) fn hear(&self, names: &[String]) {
        let watched = match &self.names {
            None => true,
            Some(watched) => names.iter().any(|n| watched.contains(n)),
        };
        if watched {
            // Counted before the wake-up, which the executor follows by reading it.
            self.arrivals.fetch_add(1, Ordering::SeqCst);
            if let Some(listener) = self.listener.get() {
                listener.on_sample();
            }
        }
    }
}

/// What triggers need of an input: a change is an arrival, and changes not yet looked at
/// with [`ParameterWatch::changed`] are unread, as samples not yet taken.
impl Input for WatchShared {
    fn unread(&self) -> usize {
        let arrivals = self.arrivals.load(Ordering::SeqCst);
        let seen = self.seen.load(Ordering::SeqCst);
        usize::try_from(arrivals.saturating_sub(seen)).unwrap_or(usize::MAX)
    }

    fn arrivals(&self) -> u64 {
        self.arrivals.load(Ordering::SeqCst)
    }

    fn dropped(&self) -> u64 {
        0
    }

    fn is_attached(&self) -> bool {
        self.listener.get().is_some()
    }

    fn attach(&self, listener: Arc<dyn Listener>) -> Result<bool, LinkError> {
        Ok(self.listener.set(listener).is_ok())
    }

    // Parameters are not frozen by a LET period: a set is seen from the next read.
    fn freeze(&self) {}
}

/// Tells whether some parameters changed (were declared, set or undeclared) since it was
/// last asked: the change probe of a node that re-reads its configuration when it changes,
/// and, through the crate, an input that a trigger can fire on.
///
/// Create one with [`ParameterStore::watch`](crate::params::ParameterStore::watch) or
/// [`watch_names`](crate::params::ParameterStore::watch_names). The store tells it of each
/// change after applying it, on the changing thread; dropping the watch unregisters it.
///
/// # Examples
/// ```
/// use tacto::params::{Parameter, ParameterStore};
///
/// let store = ParameterStore::builder("/planner").build().unwrap();
/// store.declare("horizon", 10).unwrap();
/// store.declare("verbose", false).unwrap();
/// let watch = store.watch_names(&["horizon"]);
/// assert!(!watch.changed());
/// store.set_parameter(Parameter::new("verbose", true));
/// assert!(!watch.changed()); // not watched
/// store.set_parameter(Parameter::new("horizon", 20));
/// assert!(watch.changed());
/// assert!(!watch.changed()); // looked at
/// ```
pub struct ParameterWatch {
    shared: Arc<WatchShared>,
}

impl fmt::Debug for ParameterWatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParameterWatch")
            .field("names", &self.shared.names)
            .finish_non_exhaustive()
    }
}

impl ParameterWatch {
    pub(super) fn new(shared: Arc<WatchShared>) -> Self {
        ParameterWatch { shared }
    }

    /// True if a watched parameter changed since the last call (or since the watch was
    /// made); the changes count as looked at afterwards.
    pub fn changed(&self) -> bool {
        let arrivals = self.shared.arrivals.load(Ordering::SeqCst);
        self.shared.seen.swap(arrivals, Ordering::SeqCst) != arrivals
    }

    /// How many changes of watched parameters were made since the watch was created.
    pub fn changes(&self) -> u64 {
        self.shared.arrivals.load(Ordering::SeqCst)
    }

    /// The watch as a trigger input: a change is an arrival, and changes not looked at with
    /// [`changed`](Self::changed) are unread. A node registers it among its inputs for its
    /// triggers to name it.
    pub(crate) fn input(&self) -> Arc<dyn Input> {
        self.shared.clone()
    }
}
