//! A bounded histogram of ages in seconds, for a streaming median with a known error bound.
//!
//! Log-linear bins (the HdrHistogram layout): ages below 2^[`PRECISION_BITS`] seconds (about 17
//! minutes) each have a bin of their own, so they are exact; above that, every power of two is
//! cut into 2^(PRECISION_BITS - 1) equal bins. A value is reported as the middle of its bin, so
//! the error is at most `age / 2^PRECISION_BITS` (under 0.1 %: about 1 hour at 45 days, 3.5 s at
//! 1 hour). The bins grow only as far as the largest age seen: about 8,200 `u32`s (33 KB) for
//! ages up to 90 days, at most about 28,000 for any age, however many rows are added.

/// Ages below 2^PRECISION_BITS seconds are exact; above, the relative error is at most
/// 2^-PRECISION_BITS.
pub const PRECISION_BITS: u32 = 10;

const EXACT: u64 = 1 << PRECISION_BITS;
const PER_OCTAVE: u64 = 1 << (PRECISION_BITS - 1);

/// Counts of ages (seconds, clamped at 0) in log-linear bins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgeHistogram {
    bins: Vec<u32>,
    count: u64,
}

/// The bin index of an age.
fn index(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let msb = 63 - u64::from(v.leading_zeros()); // >= PRECISION_BITS
    let shift = msb - u64::from(PRECISION_BITS) + 1;
    let top = v >> shift; // in PER_OCTAVE..EXACT
    (EXACT + (msb - u64::from(PRECISION_BITS)) * PER_OCTAVE + (top - PER_OCTAVE)) as usize
}

/// The first age of a bin and the bin's width.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < EXACT {
        return (i, 1);
    }
    let octave = (i - EXACT) / PER_OCTAVE; // 0 for msb == PRECISION_BITS
    let top = PER_OCTAVE + (i - EXACT) % PER_OCTAVE;
    let shift = octave + 1;
    (top << shift, 1 << shift)
}

impl AgeHistogram {
    /// Counts one age (negative ages, from clocks that disagree, count as 0).
    pub fn add(&mut self, age_secs: i64) {
        let i = index(age_secs.max(0) as u64);
        if i >= self.bins.len() {
            self.bins.resize(i + 1, 0);
        }
        self.bins[i] = self.bins[i].saturating_add(1);
        self.count += 1;
    }

    /// How many ages were added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The age at 0-based `rank` in ascending order, to within the bound in the module docs;
    /// `None` when `rank` is out of range.
    pub fn at_rank(&self, rank: u64) -> Option<i64> {
        if rank >= self.count {
            return None;
        }
        let mut seen = 0u64;
        for (i, &n) in self.bins.iter().enumerate() {
            seen += u64::from(n);
            if seen > rank {
                let (lo, width) = bounds(i);
                return Some((lo + width / 2) as i64);
            }
        }
        None
    }

    /// The median age: the element at index `n / 2` of the ages sorted ascending (for an even
    /// count, the older of the two middle ones; the TUI pane uses the same rank).
    pub fn median(&self) -> Option<i64> {
        self.at_rank(self.count / 2)
    }

    /// Bins allocated (for the memory bound's test).
    pub fn bins(&self) -> usize {
        self.bins.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use convo_demo::data::Rng;

    #[test]
    fn bins_are_contiguous_and_cover_every_age() {
        let mut expect_lo = 0u64;
        for i in 0..index(u64::MAX >> 1) {
            let (lo, w) = bounds(i);
            assert_eq!(lo, expect_lo, "bin {i}");
            assert_eq!(index(lo), i);
            assert_eq!(index(lo + w - 1), i);
            expect_lo = lo + w;
        }
        assert!(index(90 * 86_400) < 8_300);
    }

    #[test]
    fn median_within_the_bound_of_an_exact_sort() {
        let mut r = Rng::new(11);
        for n in [1usize, 2, 3, 10, 101, 1000, 5000] {
            for scale in [600u64, 86_400, 90 * 86_400, 40 * 365 * 86_400] {
                let mut h = AgeHistogram::default();
                let mut ages: Vec<i64> = (0..n).map(|_| r.below(scale) as i64).collect();
                for &a in &ages {
                    h.add(a);
                }
                ages.sort_unstable();
                let exact = ages[n / 2];
                let got = h.median().unwrap();
                let bound = exact >> PRECISION_BITS;
                assert!(
                    (got - exact).abs() <= bound,
                    "n={n} scale={scale}: {got} vs {exact} (bound {bound})"
                );
                if exact < EXACT as i64 {
                    assert_eq!(got, exact, "small ages are exact");
                }
            }
        }
    }

    #[test]
    fn memory_does_not_grow_with_rows() {
        let mut h = AgeHistogram::default();
        for i in 0..1_000_000i64 {
            h.add(i * 7 % (90 * 86_400));
        }
        assert_eq!(h.count(), 1_000_000);
        assert!(h.bins() <= index(90 * 86_400) + 1);
        assert_eq!(AgeHistogram::default().median(), None);
        let mut neg = AgeHistogram::default();
        neg.add(-5);
        assert_eq!(neg.median(), Some(0));
    }
}
