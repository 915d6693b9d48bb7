//! The One Euro filter (Casiez et al. 2012; seed 003): steadies a tracked point that
//! barely moves and follows one that moves fast. VR's hand tracking and the camera's
//! landmarks run through it.

use glam::Vec3;

/// One Euro filter settings (Casiez et al. 2012; seed 003).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneEuroParams {
    /// Cutoff (Hz) when still: lower = steadier, more lag.
    pub min_cutoff: f32,
    /// How much speed raises the cutoff (per m/s).
    pub beta: f32,
    /// Cutoff (Hz) of the speed estimate itself.
    pub d_cutoff: f32,
}

impl Default for OneEuroParams {
    /// Seed 003's min cutoff and d-cutoff. Its beta (0.02) is for landmarks in pixels;
    /// joints here are in metres, about a thousand times smaller numbers, so the same
    /// response to speed needs a beta about a thousand times larger.
    fn default() -> OneEuroParams {
        OneEuroParams {
            min_cutoff: 1.2,
            beta: 20.0,
            d_cutoff: 1.0,
        }
    }
}

impl OneEuroParams {
    /// Reads `MIN_CUTOFF,BETA,D_CUTOFF` (e.g. from a command-line flag).
    pub fn parse(text: &str) -> Result<OneEuroParams, String> {
        let values: Vec<f32> = text
            .split(',')
            .map(|v| v.trim().parse::<f32>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("'{text}': {e} (expected MIN_CUTOFF,BETA,D_CUTOFF)"))?;
        match values[..] {
            [min_cutoff, beta, d_cutoff]
                if min_cutoff.is_finite()
                    && min_cutoff > 0.0
                    && beta.is_finite()
                    && beta >= 0.0
                    && d_cutoff.is_finite()
                    && d_cutoff > 0.0 =>
            {
                Ok(OneEuroParams {
                    min_cutoff,
                    beta,
                    d_cutoff,
                })
            }
            _ => Err(format!(
                "'{text}': expected three numbers MIN_CUTOFF,BETA,D_CUTOFF (cutoffs > 0, beta ≥ 0)"
            )),
        }
    }
}

fn alpha(cutoff: f32, dt: f32) -> f32 {
    let tau = 1.0 / (2.0 * std::f32::consts::PI * cutoff);
    1.0 / (1.0 + tau / dt)
}

/// A One Euro filter on one number.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OneEuro {
    state: Option<(f32, f32)>, // (value, speed)
}

impl OneEuro {
    pub fn filter(&mut self, value: f32, dt: f32, params: &OneEuroParams) -> f32 {
        let Some((previous, speed)) = self.state.filter(|_| dt > 0.0 && dt.is_finite()) else {
            self.state = Some((value, 0.0));
            return value;
        };
        let raw_speed = (value - previous) / dt;
        let speed = speed + alpha(params.d_cutoff, dt) * (raw_speed - speed);
        let cutoff = params.min_cutoff + params.beta * speed.abs();
        let filtered = previous + alpha(cutoff, dt) * (value - previous);
        self.state = Some((filtered, speed));
        filtered
    }
}

/// One Euro filters on a point: one per axis (seed 003).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OneEuroVec3([OneEuro; 3]);

impl OneEuroVec3 {
    pub fn filter(&mut self, value: Vec3, dt: f32, params: &OneEuroParams) -> Vec3 {
        if !value.is_finite() {
            // A glitch in tracking: keep the last good value, start over next time.
            let last = self.0.map(|f| f.state.map_or(0.0, |s| s.0));
            *self = OneEuroVec3::default();
            return Vec3::from_array(last);
        }
        Vec3::new(
            self.0[0].filter(value.x, dt, params),
            self.0[1].filter(value.y, dt, params),
            self.0[2].filter(value.z, dt, params),
        )
    }

    pub fn reset(&mut self) {
        *self = OneEuroVec3::default();
    }
}

#[cfg(test)]
mod tests {
    /// Deterministic pseudo-random numbers in [-1, 1].
    fn noise(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    use super::*;

    #[test]
    fn one_euro_steadies_a_still_hand_and_follows_a_fast_one() {
        let params = OneEuroParams::default();
        let dt = 1.0 / 90.0;
        let mut seed = 7;
        // Still, with ±2 mm jitter: the output moves far less than the input.
        let mut filter = OneEuroVec3::default();
        let centre = Vec3::new(0.2, 1.1, -0.4);
        let (mut raw_spread, mut out_spread) = (0.0f32, 0.0f32);
        for i in 0..900 {
            let jitter = Vec3::new(noise(&mut seed), noise(&mut seed), noise(&mut seed)) * 0.002;
            let out = filter.filter(centre + jitter, dt, &params);
            if i > 180 {
                raw_spread = raw_spread.max(jitter.length());
                out_spread = out_spread.max(out.distance(centre));
            }
        }
        assert!(
            out_spread < raw_spread / 3.0,
            "jitter {raw_spread} → {out_spread}"
        );
        // Moving at 1 m/s (with the same jitter): the lag stays under 2 cm.
        let mut filter = OneEuroVec3::default();
        let mut worst_lag = 0.0f32;
        for i in 0..180 {
            let truth = Vec3::new(i as f32 * dt, 1.0, 0.0);
            let jitter = Vec3::new(noise(&mut seed), noise(&mut seed), noise(&mut seed)) * 0.002;
            let out = filter.filter(truth + jitter, dt, &params);
            if i > 45 {
                worst_lag = worst_lag.max(out.distance(truth));
            }
        }
        assert!(worst_lag < 0.02, "lag {worst_lag}");
        // A plain low-pass at the still cutoff would lag far more: the speed term matters.
        let slow = OneEuroParams {
            beta: 0.0,
            ..params
        };
        let mut filter = OneEuroVec3::default();
        let mut lag = 0.0f32;
        for i in 0..180 {
            let truth = Vec3::new(i as f32 * dt, 1.0, 0.0);
            lag = filter.filter(truth, dt, &slow).distance(truth);
        }
        assert!(lag > 5.0 * worst_lag, "{lag} vs {worst_lag}");
        // A tracking glitch (NaN) never reaches the output.
        let mut filter = OneEuroVec3::default();
        filter.filter(centre, dt, &params);
        assert!(filter.filter(Vec3::NAN, dt, &params).is_finite());
    }

    #[test]
    fn one_euro_settings_parse_and_refuse_nonsense() {
        let p = OneEuroParams::parse("1.0, 5, 2").unwrap();
        assert_eq!((p.min_cutoff, p.beta, p.d_cutoff), (1.0, 5.0, 2.0));
        for bad in ["", "1,2", "1,2,3,4", "0,1,1", "1,-1,1", "1,NaN,1", "a,b,c"] {
            assert!(OneEuroParams::parse(bad).is_err(), "{bad}");
        }
    }
}
