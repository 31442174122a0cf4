//! The statistics of playouts and comparisons: shares with Wilson score intervals, summaries
//! of numbers with a confidence interval of the mean, and the tests `compare` reports (a
//! chi-square test of two outcome distributions, a two-proportion test per outcome, Welch's
//! t-test of two means). The distributions are statrs's.

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal, StudentsT};

/// The z of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval of a share `k / n` (`(0, 1)` for no trials).
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, Z95);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A summary of numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// The sample standard deviation (0 for fewer than two).
    pub sd: f64,
    pub min: f64,
    pub median: f64,
    pub max: f64,
    /// The 95% interval of the mean (Student's t).
    pub ci: (f64, f64),
}

pub fn summary(xs: &[f64]) -> Option<Summary> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = if n > 1 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    let sd = var.sqrt();
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
    let half = if n > 1 { t_quantile(n as f64 - 1.0) * sd / (n as f64).sqrt() } else { 0.0 };
    Some(Summary { n, mean, sd, min: sorted[0], median, max: sorted[n - 1], ci: (mean - half, mean + half) })
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom.
fn t_quantile(df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).map(|t| t.inverse_cdf(0.975)).unwrap_or(Z95)
}

/// A two-proportion z-test: the difference `k2/n2 - k1/n1`, its 95% interval (unpooled) and the
/// two-sided p-value (pooled).
pub fn two_proportions(k1: usize, n1: usize, k2: usize, n2: usize) -> (f64, (f64, f64), f64) {
    if n1 == 0 || n2 == 0 {
        return (0.0, (-1.0, 1.0), 1.0);
    }
    let (p1, p2) = (k1 as f64 / n1 as f64, k2 as f64 / n2 as f64);
    let diff = p2 - p1;
    let se = (p1 * (1.0 - p1) / n1 as f64 + p2 * (1.0 - p2) / n2 as f64).sqrt();
    let pool = (k1 + k2) as f64 / (n1 + n2) as f64;
    let se0 = (pool * (1.0 - pool) * (1.0 / n1 as f64 + 1.0 / n2 as f64)).sqrt();
    let p = if se0 == 0.0 { 1.0 } else { two_sided_normal(diff / se0) };
    (diff, (diff - Z95 * se, diff + Z95 * se), p)
}

fn two_sided_normal(z: f64) -> f64 {
    let n = Normal::standard();
    (2.0 * (1.0 - n.cdf(z.abs()))).clamp(0.0, 1.0)
}

/// The chi-square test of homogeneity of two count distributions over the same categories:
/// (statistic, degrees of freedom, p-value). Categories empty in both are left out; with fewer
/// than two categories there is nothing to test (p = 1).
pub fn chi_square(a: &[usize], b: &[usize]) -> (f64, usize, f64) {
    let (na, nb) = (a.iter().sum::<usize>() as f64, b.iter().sum::<usize>() as f64);
    let cells: Vec<(f64, f64)> =
        a.iter().zip(b).filter(|(x, y)| **x + **y > 0).map(|(x, y)| (*x as f64, *y as f64)).collect();
    if cells.len() < 2 || na == 0.0 || nb == 0.0 {
        return (0.0, 0, 1.0);
    }
    let total = na + nb;
    let mut stat = 0.0;
    for (x, y) in &cells {
        let col = x + y;
        for (obs, row) in [(x, na), (y, nb)] {
            let exp = row * col / total;
            stat += (obs - exp).powi(2) / exp;
        }
    }
    let df = cells.len() - 1;
    let p = ChiSquared::new(df as f64).map(|c| 1.0 - c.cdf(stat)).unwrap_or(1.0);
    (stat, df, p.clamp(0.0, 1.0))
}

/// Welch's t-test of two means: (difference `mean(b) - mean(a)`, two-sided p-value).
pub fn welch(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    let (sa, sb) = (summary(a)?, summary(b)?);
    let diff = sb.mean - sa.mean;
    if sa.n < 2 || sb.n < 2 {
        return Some((diff, 1.0));
    }
    let (va, vb) = (sa.sd.powi(2) / sa.n as f64, sb.sd.powi(2) / sb.n as f64);
    if va + vb == 0.0 {
        return Some((diff, if diff == 0.0 { 1.0 } else { 0.0 }));
    }
    let t = diff / (va + vb).sqrt();
    let df = (va + vb).powi(2) / (va.powi(2) / (sa.n as f64 - 1.0) + vb.powi(2) / (sb.n as f64 - 1.0));
    let p = StudentsT::new(0.0, 1.0, df).map(|d| 2.0 * (1.0 - d.cdf(t.abs()))).unwrap_or(1.0);
    Some((diff, p.clamp(0.0, 1.0)))
}

/// Holm's step-down adjustment of `ps` for testing them together (each adjusted p-value at
/// most 1, in the order given): a family of tests holds at level a where its adjusted p < a.
pub fn holm(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| ps[i].total_cmp(&ps[j]).then(i.cmp(&j)));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * ps[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn wilson_intervals_match_published_values() {
        // 81 of 263 (Newcombe 1998's example): 0.2553 to 0.3662
        let (lo, hi) = wilson(81, 263);
        assert!(close(lo, 0.2553, 5e-4) && close(hi, 0.3662, 5e-4), "{lo} {hi}");
        // none of 10: 0 to 0.2775
        let (lo, hi) = wilson(0, 10);
        assert!(lo == 0.0 && close(hi, 0.2775, 5e-4), "{lo} {hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn a_summary_gives_its_mean_median_and_interval() {
        let s = summary(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!((s.n, s.mean, s.median, s.min, s.max), (8, 5.0, 4.5, 2.0, 9.0));
        assert!(close(s.sd, 2.138, 1e-3), "{}", s.sd);
        // t(7) 97.5% = 2.3646: 5 ± 2.3646 × 2.138 / √8
        assert!(close(s.ci.0, 3.2126, 1e-3) && close(s.ci.1, 6.7874, 1e-3), "{:?}", s.ci);
        assert!(summary(&[]).is_none());
    }

    #[test]
    fn the_tests_tell_a_change_from_noise() {
        // 2×2: 30/100 against 50/100, chi-square 8.333 on 1 df, p 0.0039
        let (stat, df, p) = chi_square(&[30, 70], &[50, 50]);
        assert!(close(stat, 8.333, 1e-3) && df == 1 && close(p, 0.00389, 1e-4), "{stat} {df} {p}");
        let (d, ci, p2) = two_proportions(30, 100, 50, 100);
        assert!(close(d, 0.2, 1e-9) && ci.0 > 0.0 && close(p, p2, 1e-9), "{d} {ci:?} {p2}");
        // the same distribution: nothing to see
        let (_, _, p) = chi_square(&[10, 10], &[10, 10]);
        assert!(close(p, 1.0, 1e-9));
        let (diff, p) = welch(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(diff == 0.0 && close(p, 1.0, 1e-9));
        let (diff, p) = welch(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]).unwrap();
        // t = 5, df = 8: p = 0.00105
        assert!(diff == 5.0 && close(p, 0.00105, 5e-5), "{p}");
    }

    #[test]
    fn holm_adjusts_the_smallest_most_and_keeps_the_order() {
        // 0.01 × 4, then max(0.04, 0.02 × 3), 0.03 × 2, 0.5 × 1 (Holm 1979's step-down)
        let adj = holm(&[0.03, 0.01, 0.5, 0.02]);
        let want = [0.06, 0.04, 0.5, 0.06];
        for (a, w) in adj.iter().zip(want) {
            assert!(close(*a, w, 1e-12), "{adj:?}");
        }
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }
}
