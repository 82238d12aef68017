//! A test-only transport written against `tacto::transport` alone: a [`Hub`] stands for the
//! network, and each context it gives a transport to stands for a process. A writer encodes to
//! CDR and the hub copies the bytes into the readers of every *other* "process" on the topic;
//! a reader is a bounded cache with DDS sample states, as a DDS reader's is. Nothing here
//! knows about Cyclone or shared memory, so the tests that use it check the seam itself.

#![allow(dead_code)] // each test file uses its own part of this module

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{SystemTime, UNIX_EPOCH};

use tacto::transport::{
    LinkError, LinkReader, LinkWriter, ReadOp, RemoteBytes, RemoteSample, RosType, Transport,
};
use tacto::{Context, History, PublisherId, Qos, SampleInfo, Time};

/// The "network": every reader of every process, by topic.
#[derive(Debug, Default)]
pub struct Hub {
    readers: Mutex<Vec<(String, usize, Weak<Cache>)>>,
    processes: AtomicUsize,
    /// Received samples whose bytes some reader or subscription still holds.
    held: Arc<AtomicUsize>,
    /// Samples written, by topic.
    written: Mutex<HashMap<String, u64>>,
}

impl Hub {
    pub fn new() -> Arc<Hub> {
        Arc::new(Hub::default())
    }

    /// A context of a new "process" on this hub.
    pub fn context(self: &Arc<Self>) -> Context {
        Context::builder().transport(self.transport()).create()
    }

    /// The transport of a new "process" on this hub.
    pub fn transport(self: &Arc<Self>) -> Arc<dyn Transport> {
        let process = self.processes.fetch_add(1, Ordering::Relaxed) + 1;
        Arc::new(Loopback {
            hub: self.clone(),
            process,
        })
    }

    /// Received samples whose bytes are still held: by a reader's cache, or by a
    /// subscription that has not decoded them yet.
    pub fn samples_held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }

    /// The samples written on `topic` so far, by every process.
    pub fn writes(&self, topic: &str) -> u64 {
        self.written
            .lock()
            .unwrap()
            .get(topic)
            .copied()
            .unwrap_or(0)
    }

    /// The live readers of `topic` outside `process`.
    fn remote_readers(&self, topic: &str, process: usize) -> Vec<Arc<Cache>> {
        let mut readers = self.readers.lock().unwrap();
        readers.retain(|(_, _, cache)| cache.strong_count() > 0);
        (readers.iter())
            .filter(|(t, p, _)| t == topic && *p != process)
            .filter_map(|(_, _, cache)| cache.upgrade())
            .collect()
    }
}

#[derive(Debug)]
struct Loopback {
    hub: Arc<Hub>,
    process: usize,
}

impl Transport for Loopback {
    fn writer(
        &self,
        _: Option<&str>,
        topic: &str,
        _: RosType,
        _: &Qos,
    ) -> Result<Arc<dyn LinkWriter>, LinkError> {
        static WRITERS: AtomicU64 = AtomicU64::new(1);
        let mut id = [0xAB; 16];
        id[8..].copy_from_slice(&WRITERS.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        Ok(Arc::new(Writer {
            hub: self.hub.clone(),
            process: self.process,
            topic: topic.to_owned(),
            id: PublisherId(id),
            sequence: AtomicU64::new(0),
        }))
    }

    fn reader(
        &self,
        _: Option<&str>,
        topic: &str,
        _: RosType,
        qos: &Qos,
    ) -> Result<Box<dyn LinkReader>, LinkError> {
        let cache = Arc::new(Cache {
            depth: qos.history,
            samples: Mutex::new(VecDeque::new()),
            wake: Mutex::new(None),
        });
        let entry = (topic.to_owned(), self.process, Arc::downgrade(&cache));
        self.hub.readers.lock().unwrap().push(entry);
        Ok(Box::new(Reader(cache)))
    }
}

#[derive(Debug)]
struct Writer {
    hub: Arc<Hub>,
    process: usize,
    topic: String,
    id: PublisherId,
    sequence: AtomicU64,
}

impl LinkWriter for Writer {
    fn has_remote_readers(&self) -> bool {
        !self
            .hub
            .remote_readers(&self.topic, self.process)
            .is_empty()
    }

    fn write(&self, cdr: &[u8]) -> Result<(), LinkError> {
        *(self.hub.written.lock().unwrap())
            .entry(self.topic.clone())
            .or_default() += 1;
        let info = SampleInfo {
            publish_time: now(),
            receive_time: now(),
            publisher: self.id,
            sequence: self.sequence.fetch_add(1, Ordering::Relaxed) + 1,
        };
        for cache in self.hub.remote_readers(&self.topic, self.process) {
            self.hub.held.fetch_add(1, Ordering::SeqCst);
            let held = Held {
                cdr: cdr.to_vec(),
                count: self.hub.held.clone(),
            };
            cache.insert(RemoteBytes::new(held), info);
        }
        Ok(())
    }

    fn incompatible_qos(&self) -> u64 {
        0
    }
}

/// A received sample's bytes as the transport holds them, counted while they live.
struct Held {
    cdr: Vec<u8>,
    count: Arc<AtomicUsize>,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.cdr
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
    }
}

fn now() -> Time {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    Time::from_nanos(since.as_nanos() as i64)
}

/// One reader's cache: KeepLast overwrites the oldest, KeepAll refuses when full.
struct Cache {
    depth: History,
    samples: Mutex<VecDeque<Slot>>,
    wake: Mutex<Option<Arc<dyn Fn() + Send + Sync>>>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache").field("depth", &self.depth).finish()
    }
}

struct Slot {
    /// Shared with every sample handed out: a read is never a copy of the bytes.
    cdr: RemoteBytes,
    info: SampleInfo,
    read: bool,
}

impl Cache {
    fn insert(&self, cdr: RemoteBytes, info: SampleInfo) {
        {
            let mut samples = self.samples.lock().unwrap();
            match self.depth {
                History::KeepLast(n) if samples.len() >= n => drop(samples.pop_front()),
                History::KeepAll { max } if samples.len() >= max => return,
                _ => {}
            }
            samples.push_back(Slot {
                cdr,
                info,
                read: false,
            });
        }
        let wake = self.wake.lock().unwrap().clone();
        if let Some(wake) = wake {
            wake();
        }
    }
}

#[derive(Debug)]
struct Reader(Arc<Cache>);

impl LinkReader for Reader {
    fn next(&self, op: ReadOp) -> Option<RemoteSample> {
        let mut samples = self.0.samples.lock().unwrap();
        let sample = |slot: &Slot| RemoteSample {
            cdr: slot.cdr.clone(),
            info: slot.info,
        };
        let oldest_new = samples.iter().position(|s| !s.read);
        match op {
            ReadOp::PeekNewest => samples.back().map(sample),
            ReadOp::Take => samples.pop_front().map(|s| sample(&s)),
            ReadOp::TakeNew => samples.remove(oldest_new?).map(|s| sample(&s)),
            ReadOp::ReadNew => {
                let slot = &mut samples[oldest_new?];
                slot.read = true;
                Some(sample(slot))
            }
            ReadOp::Latest => {
                samples.iter_mut().for_each(|s| s.read = true);
                samples.back().map(sample)
            }
        }
    }

    fn oldest_info(&self, new_only: bool) -> Option<SampleInfo> {
        let samples = self.0.samples.lock().unwrap();
        let mut candidates = samples.iter().filter(|s| !new_only || !s.read);
        candidates.next().map(|s| s.info)
    }

    fn unread(&self) -> usize {
        self.0
            .samples
            .lock()
            .unwrap()
            .iter()
            .filter(|s| !s.read)
            .count()
    }

    fn len(&self) -> usize {
        self.0.samples.lock().unwrap().len()
    }

    fn incompatible_qos(&self) -> u64 {
        0
    }

    fn on_data(&self, wake: Arc<dyn Fn() + Send + Sync>) -> Result<(), LinkError> {
        *self.0.wake.lock().unwrap() = Some(wake);
        Ok(())
    }
}
