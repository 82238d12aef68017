//! A latency histogram of fixed size, however long a run lasts.
//!
//! Keeping every sample would grow a run's memory with its duration (a 10-minute run of nobleo
//! takes 6 million samples), and RSS is one of the figures measured. So latencies go into
//! log-linear buckets instead, as HdrHistogram does: exact below 32 ns, then 32 buckets per
//! power of two, so a percentile is off by at most 1/64 of its value (1.6 %). The mean and the
//! maximum are exact. Latencies above 2^40 ns (18 minutes) count in the last bucket.

use crate::result::Distribution;

/// Sub-buckets per power of two, as a power of two: 2^5 = 32.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Largest value kept apart (2^40 − 1 ns); larger ones share its bucket.
const TOP: u64 = (1 << 40) - 1;
/// Buckets needed up to `TOP`: one linear range, then one range per power of two above it.
const BUCKETS: usize = ((40 - SUB_BITS + 1) as usize) * SUB as usize;

/// Latencies in nanoseconds, counted in buckets of bounded relative width.
///
/// # Examples
/// ```
/// use tacto_bench::histogram::Histogram;
///
/// let mut h = Histogram::new();
/// for us in 1..=100u64 {
///     h.record(us * 1_000);
/// }
/// let d = h.distribution_ms();
/// assert_eq!(d.n, 100);
/// assert!((d.mean - 0.0505).abs() < 1e-12); // exact
/// assert_eq!(d.max, 0.1); // exact
/// assert!((d.p99 - 0.099).abs() <= 0.099 / 64.0); // within one bucket
/// ```
#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Box<[u64]>,
    n: u64,
    sum: u128,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    /// An empty histogram (9 KiB, allocated once).
    pub fn new() -> Histogram {
        Histogram {
            counts: vec![0; BUCKETS].into_boxed_slice(),
            n: 0,
            sum: 0,
            max: 0,
        }
    }

    /// Counts one latency of `nanos` nanoseconds.
    pub fn record(&mut self, nanos: u64) {
        self.counts[bucket(nanos.min(TOP))] += 1;
        self.n += 1;
        self.sum += u128::from(nanos);
        self.max = self.max.max(nanos);
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.n = 0;
        self.sum = 0;
        self.max = 0;
    }

    /// The number of samples.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True if nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The distribution in milliseconds; all zeros if empty. Percentiles use the nearest rank,
    /// as [`Distribution::of`] does, and report the middle of the rank's bucket.
    pub fn distribution_ms(&self) -> Distribution {
        if self.n == 0 {
            return Distribution::default();
        }
        let ms = |nanos: f64| nanos / 1e6;
        Distribution {
            mean: ms(self.sum as f64 / self.n as f64),
            p50: ms(self.quantile(0.50) as f64),
            p99: ms(self.quantile(0.99) as f64),
            max: ms(self.max as f64),
            n: self.n,
        }
    }

    /// The value of nearest rank `q`, as the middle of its bucket (never above the maximum).
    fn quantile(&self, q: f64) -> u64 {
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let (low, width) = bounds(i);
                return (low + width / 2).min(self.max);
            }
        }
        self.max
    }
}

/// The bucket of `v`: exact below `SUB`, then `SUB` buckets per power of two.
fn bucket(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    // `v >> shift` keeps the top SUB_BITS + 1 bits: SUB..2·SUB.
    ((shift as u64 + 1) * SUB + ((v >> shift) - SUB)) as usize
}

/// The lowest value of bucket `i` and its width.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, 1);
    }
    let shift = i / SUB - 1;
    ((SUB + i % SUB) << shift, 1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_lies_in_its_bucket_and_buckets_are_narrow() {
        let values = (0..2000u64).chain((0..40).map(|b| (1u64 << b) + 12_345 % (1 << b)));
        for v in values.filter(|&v| v <= TOP) {
            let (low, width) = bounds(bucket(v));
            assert!(low <= v && v < low + width, "{v} not in [{low}, +{width})");
            assert!(width == 1 || width * SUB <= low, "bucket of {v} too wide");
        }
        assert_eq!(bucket(TOP), BUCKETS - 1);
    }

    #[test]
    fn small_latencies_are_exact() {
        let mut h = Histogram::new();
        for v in [3, 7, 7, 20] {
            h.record(v);
        }
        assert_eq!((h.quantile(0.5), h.quantile(0.99), h.len()), (7, 20, 4));
    }

    #[test]
    fn huge_latencies_keep_an_exact_maximum() {
        let mut h = Histogram::new();
        h.record(u64::MAX / 2);
        assert_eq!(h.distribution_ms().max, (u64::MAX / 2) as f64 / 1e6);
        assert!(h.quantile(0.5) <= u64::MAX / 2);
    }

    #[test]
    fn clearing_forgets_everything() {
        let mut h = Histogram::new();
        h.record(1_000_000);
        h.clear();
        assert!(h.is_empty());
        assert_eq!(h.distribution_ms(), Distribution::default());
    }
}
