//! Rating arithmetic: Elo from a score with a confidence interval, the sequential probability
//! ratio test of fishtest, and a maximum-likelihood joint fit for tournaments (as BayesElo and
//! Ordo do, with draws counted as half a win and half a loss).

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Wdl {
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
}

impl Wdl {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The same games from the other side: its wins are these losses.
    pub fn reversed(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Points per game, draws half (0.5 with no games).
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (self.wins as f64 + 0.5 * self.draws as f64) / n as f64,
        }
    }
}

impl std::ops::AddAssign for Wdl {
    fn add_assign(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

/// Elo difference that an expected score `score` (in (0, 1)) corresponds to.
pub fn elo_from_score(score: f64) -> f64 {
    let score = score.clamp(SCORE_FLOOR, 1.0 - SCORE_FLOOR);
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Expected score of a player rated `elo` above its opponent.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo estimate with a 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EloEstimate {
    /// Most likely difference.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// How close to 0 or 1 a score is taken for Elo: a perfect score reads as the largest finite
/// difference (about +2400), a stand-in for "no upper bound", not a measurement.
const SCORE_FLOOR: f64 = 1e-6;

/// An Elo difference rounded to a whole number, with its sign (`+0`, never `-0`).
pub fn signed_elo(elo: f64) -> String {
    let rounded = elo.round();
    if rounded == 0.0 {
        "+0".to_string()
    } else {
        format!("{rounded:+.0}")
    }
}

impl EloEstimate {
    /// Whether the estimate comes from a perfect score (every game won): it has only a lower
    /// bound.
    pub fn is_perfect_win(&self) -> bool {
        self.elo >= elo_from_score(1.0) - 0.01
    }

    /// Whether the estimate comes from a score of zero (every game lost): it has only an upper
    /// bound.
    pub fn is_perfect_loss(&self) -> bool {
        self.elo <= elo_from_score(0.0) + 0.01
    }
}

impl std::fmt::Display for EloEstimate {
    /// `+35 Elo (95%: -20 to +90)`; a perfect score, which bounds the difference on one side
    /// only, as `> -676 Elo (95% lower bound; perfect score: no upper bound)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_perfect_win() {
            write!(
                f,
                "> {} Elo (95% lower bound; perfect score: no upper bound)",
                signed_elo(self.low)
            )
        } else if self.is_perfect_loss() {
            write!(
                f,
                "< {} Elo (95% upper bound; zero score: no lower bound)",
                signed_elo(self.high)
            )
        } else {
            write!(
                f,
                "{} Elo (95%: {} to {})",
                signed_elo(self.elo),
                signed_elo(self.low),
                signed_elo(self.high)
            )
        }
    }
}

/// Elo difference from a match result, with a 95% interval from the trinomial variance of the
/// per-game score (normal approximation).
pub fn elo_estimate(wdl: Wdl) -> EloEstimate {
    let n = wdl.games().max(1) as f64;
    let s = wdl.score();
    let variance = (wdl.wins as f64 * (1.0 - s).powi(2)
        + wdl.draws as f64 * (0.5 - s).powi(2)
        + wdl.losses as f64 * s.powi(2))
        / n;
    // With every game the same result the sample variance is 0; the floor keeps an honest
    // interval (about the "rule of three" bound for a perfect score).
    let variance = variance.max(1.0 / n);
    let margin = 1.959_964 * (variance / n).sqrt();
    EloEstimate {
        elo: elo_from_score(s),
        low: elo_from_score(s - margin),
        high: elo_from_score(s + margin),
    }
}

/// The SPRT's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// The log-likelihood ratio crossed the upper bound: elo1 is accepted.
    AcceptH1,
    /// It crossed the lower bound: elo0 is accepted.
    AcceptH0,
    /// Keep playing.
    Continue,
}

/// A sequential probability ratio test between H0: Elo = `elo0` and H1: Elo = `elo1` with
/// error rates `alpha` and `beta`, using the trinomial GSPRT approximation of fishtest
/// (logistic Elo; draws estimated from the sample).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

impl std::str::FromStr for Sprt {
    type Err = String;

    /// Reads `elo0,elo1,alpha,beta` (as `--sprt 0,10,0.05,0.05`).
    fn from_str(text: &str) -> Result<Self, String> {
        let values: Vec<f64> = text
            .split(',')
            .map(|v| v.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("`{text}`: expected four numbers elo0,elo1,alpha,beta"))?;
        let [elo0, elo1, alpha, beta] = values[..] else {
            return Err(format!(
                "`{text}`: expected four numbers elo0,elo1,alpha,beta"
            ));
        };
        let rate = |r: f64| r > 0.0 && r < 0.5;
        if !(elo0 < elo1 && rate(alpha) && rate(beta)) {
            return Err(format!(
                "`{text}`: needs elo0 < elo1 and 0 < alpha, beta < 0.5"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

impl Sprt {
    /// Log-likelihood ratio of H1 against H0 for these results (fishtest's `LLR_logistic`).
    pub fn llr(&self, wdl: Wdl) -> f64 {
        if wdl.wins == 0 || wdl.losses == 0 {
            // The variance estimate needs both; with a zero count the test cannot decide yet
            // from the approximation (fishtest regularises the same way by adding half-games).
            return self.llr(Wdl {
                wins: wdl.wins.max(1),
                draws: wdl.draws,
                losses: wdl.losses.max(1),
            }) * (wdl.games() as f64 / (wdl.games() + 2) as f64).max(0.0);
        }
        let n = wdl.games() as f64;
        let (w, d) = (wdl.wins as f64 / n, wdl.draws as f64 / n);
        let s = w + d / 2.0;
        let variance = (w + d / 4.0) - s * s;
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * variance / n)
    }

    /// The lower and upper decision bounds, `ln(beta/(1-alpha))` and `ln((1-beta)/alpha)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// What the test says after these results.
    pub fn verdict(&self, wdl: Wdl) -> SprtVerdict {
        let llr = self.llr(wdl);
        let (low, high) = self.bounds();
        if llr >= high {
            SprtVerdict::AcceptH1
        } else if llr <= low {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}

/// Ratings of the players from pairwise results `results[i][j]` (i's results against j), by
/// maximum likelihood under the logistic model (draws as half a win and half a loss), player
/// `anchor` fixed at 0. `prior_games` adds that many virtual draws of each player against an
/// opponent rated 0 (as BayesElo's prior does), which keeps perfect scores finite. Each rating
/// comes with a 95% interval from the curvature of the likelihood (the Fisher information with
/// the anchor fixed).
pub fn fit_ratings(results: &[Vec<Wdl>], anchor: usize, prior_games: f64) -> Vec<EloEstimate> {
    let n = results.len();
    let k = 10f64.ln() / 400.0;
    let mut ratings = vec![0.0f64; n];
    let points = |i: usize, j: usize| results[i][j].wins as f64 + 0.5 * results[i][j].draws as f64;
    let games = |i: usize, j: usize| results[i][j].games() as f64;
    for _ in 0..10_000 {
        let mut largest_step: f64 = 0.0;
        for i in (0..n).filter(|&i| i != anchor) {
            // Newton step on player i's rating with the others held fixed.
            let prior = score_from_elo(ratings[i]);
            let mut gradient = prior_games * (0.5 - prior);
            let mut curvature = prior_games * prior * (1.0 - prior);
            for j in (0..n).filter(|&j| j != i) {
                let expected = score_from_elo(ratings[i] - ratings[j]);
                gradient += points(i, j) - games(i, j) * expected;
                curvature += games(i, j) * expected * (1.0 - expected);
            }
            let step = gradient / (curvature * k);
            ratings[i] += step;
            largest_step = largest_step.max(step.abs());
        }
        if largest_step < 1e-7 {
            break;
        }
    }
    // Intervals from the diagonal of the inverse Fisher information (anchor removed).
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let m = free.len();
    let mut information = vec![vec![0.0; m]; m];
    for (a, &i) in free.iter().enumerate() {
        let prior = score_from_elo(ratings[i]) * (1.0 - score_from_elo(ratings[i]));
        information[a][a] += k * k * prior_games * prior;
        for j in (0..n).filter(|&j| j != i) {
            let e = score_from_elo(ratings[i] - ratings[j]);
            let w = k * k * games(i, j) * e * (1.0 - e);
            information[a][a] += w;
            if let Some(b) = free.iter().position(|&f| f == j) {
                information[a][b] -= w;
            }
        }
    }
    let covariance = invert(information);
    (0..n)
        .map(|i| match free.iter().position(|&f| f == i) {
            None => EloEstimate {
                elo: 0.0,
                low: 0.0,
                high: 0.0,
            },
            Some(a) => {
                let margin = 1.959_964 * covariance[a][a].max(0.0).sqrt();
                EloEstimate {
                    elo: ratings[i],
                    low: ratings[i] - margin,
                    high: ratings[i] + margin,
                }
            }
        })
        .collect()
}

/// Inverse of a symmetric positive definite matrix by Gauss-Jordan elimination.
fn invert(mut a: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let n = a.len();
    let mut inverse: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .expect("non-empty");
        a.swap(col, pivot);
        inverse.swap(col, pivot);
        let p = a[col][col];
        if p.abs() < 1e-300 {
            continue;
        }
        for j in 0..n {
            a[col][j] /= p;
            inverse[col][j] /= p;
        }
        for row in (0..n).filter(|&r| r != col) {
            let factor = a[row][col];
            for j in 0..n {
                a[row][j] -= factor * a[col][j];
                inverse[row][j] -= factor * inverse[col][j];
            }
        }
    }
    inverse
}
