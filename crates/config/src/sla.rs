//! `[sla]`: response-time targets, per profile, with `[sla.sites]` overrides keyed by site UUID
//! or alias (issue 13). Checked here into a [`convo_engine::sla::Sla`]; every refusal names the file,
//! the line and the key.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;
use uuid::Uuid;

use super::text::{line_col, shown};
use super::ui::{DurationValue, parse_duration};
use super::{Aliases, ConfigError};
use convo_engine::sla::{BusinessHours, Policy, Sla};

/// Longest target: a year. More is a typo.
const MAX_TARGET_SECS: i64 = 366 * 86_400;

/// The targets of `[sla]` or of one `[sla.sites.X]`, as written.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileTargets {
    first_response: Option<Spanned<DurationValue>>,
    resolution: Option<Spanned<DurationValue>>,
    warn_at: Option<Spanned<f64>>,
    business_hours: Option<Spanned<String>>,
    timezone: Option<Spanned<String>>,
}

/// `[sla]` as written.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileSla {
    // The keys of FileTargets, written out: serde's `flatten` loses the spans and the
    // unknown-key check.
    first_response: Option<Spanned<DurationValue>>,
    resolution: Option<Spanned<DurationValue>>,
    warn_at: Option<Spanned<f64>>,
    business_hours: Option<Spanned<String>>,
    timezone: Option<Spanned<String>>,
    /// Keyed by a site's UUID or its alias.
    #[serde(default)]
    sites: BTreeMap<Spanned<String>, FileTargets>,
}

impl FileTargets {
    /// `p`'s keys win.
    fn overlay(&mut self, p: FileTargets) {
        macro_rules! take {
            ($($f:ident),*) => { $( if p.$f.is_some() { self.$f = p.$f; } )* };
        }
        take!(
            first_response,
            resolution,
            warn_at,
            business_hours,
            timezone
        );
    }
}

impl FileSla {
    /// The top-level targets.
    fn base(&self) -> FileTargets {
        FileTargets {
            first_response: self.first_response.clone(),
            resolution: self.resolution.clone(),
            warn_at: self.warn_at.clone(),
            business_hours: self.business_hours.clone(),
            timezone: self.timezone.clone(),
        }
    }

    /// A profile's `[sla]` over the top level's: its keys win, its sites are added (a site named
    /// in both takes the profile's keys over the top level's).
    pub fn overlay(mut self, p: FileSla) -> FileSla {
        macro_rules! take {
            ($($f:ident),*) => { $( if p.$f.is_some() { self.$f = p.$f; } )* };
        }
        take!(
            first_response,
            resolution,
            warn_at,
            business_hours,
            timezone
        );
        for (k, v) in p.sites {
            match self.sites.remove(&k) {
                Some(mut old) => {
                    old.overlay(v);
                    self.sites.insert(k, old);
                }
                None => {
                    self.sites.insert(k, v);
                }
            }
        }
        self
    }
}

/// Checks `[sla]` (from `text`, the whole file, for line numbers) into targets.
pub(crate) fn check(
    f: Option<FileSla>,
    aliases: &Aliases,
    text: &str,
    path: &str,
) -> Result<Sla, ConfigError> {
    let Some(f) = f else {
        return Ok(Sla::default());
    };
    let at = |key: String, span: std::ops::Range<usize>, message: String| ConfigError::InvalidAt {
        path: path.to_string(),
        line: line_col(text, span.start).0,
        key,
        message,
    };
    let top = f.base();
    let base = policy(&top, None, "sla", &at)?;
    let mut sites = HashMap::new();
    for (name, t) in &f.sites {
        let key = format!("sla.sites.{}", shown(name.get_ref()));
        let id = site_id(name.get_ref(), aliases).map_err(|m| at(key.clone(), name.span(), m))?;
        let p = policy(t, Some(&top), &key, &at)?;
        if sites.insert(id, p).is_some() {
            return Err(at(key, name.span(), "this site is named twice".into()));
        }
    }
    if top.business_hours.is_none()
        && f.sites.values().all(|s| s.business_hours.is_none())
        && let Some(tz) = &top.timezone
    {
        return Err(at(
            "sla.timezone".into(),
            tz.span(),
            "is set but business_hours is not: the clock runs all the time without it".into(),
        ));
    }
    Ok(Sla { base, sites })
}

/// A site's UUID, or the site whose alias is `name`.
fn site_id(name: &str, aliases: &Aliases) -> Result<Uuid, String> {
    if let Ok(id) = Uuid::parse_str(name.trim()) {
        return Ok(id);
    }
    let found: Vec<Uuid> = aliases.ids_named(name.trim());
    match found.as_slice() {
        [id] => Ok(*id),
        [] => Err("is neither a site UUID nor a name in [aliases]".into()),
        _ => Err("this alias names more than one UUID; use the site's UUID".into()),
    }
}

type At<'a> = dyn Fn(String, std::ops::Range<usize>, String) -> ConfigError + 'a;

/// One policy: `t`'s keys, else `base`'s (for a site), else the defaults.
fn policy(
    t: &FileTargets,
    base: Option<&FileTargets>,
    prefix: &str,
    at: &At<'_>,
) -> Result<Policy, ConfigError> {
    let pick = |f: fn(&FileTargets) -> bool| if f(t) { Some(t) } else { base.filter(|b| f(b)) };
    let target =
        |name: &str, v: Option<&Spanned<DurationValue>>| -> Result<Option<i64>, ConfigError> {
            let Some(v) = v else { return Ok(None) };
            let key = format!("{prefix}.{name}");
            let secs = match v.get_ref() {
                DurationValue::Secs(n) => Ok(*n),
                DurationValue::Text(s) => parse_duration(s),
            }
            .map_err(|m| at(key.clone(), v.span(), m))?;
            if secs <= 0 {
                return Err(at(
                    key,
                    v.span(),
                    "must be more than 0 (leave it out to not track this target)".into(),
                ));
            }
            if secs > MAX_TARGET_SECS {
                return Err(at(key, v.span(), "is more than a year".into()));
            }
            Ok(Some(secs))
        };
    let first_response = target(
        "first_response",
        pick(|t| t.first_response.is_some()).and_then(|t| t.first_response.as_ref()),
    )?;
    let resolution = target(
        "resolution",
        pick(|t| t.resolution.is_some()).and_then(|t| t.resolution.as_ref()),
    )?;
    let warn_at = match pick(|t| t.warn_at.is_some()).and_then(|t| t.warn_at.as_ref()) {
        None => convo_engine::sla::DEFAULT_WARN_AT,
        Some(w) if *w.get_ref() > 0.0 && *w.get_ref() <= 1.0 => *w.get_ref(),
        Some(w) => {
            return Err(at(
                format!("{prefix}.warn_at"),
                w.span(),
                format!(
                    "{} is not a share above 0 and at most 1 (e.g. 0.8 for 80 %)",
                    w.get_ref()
                ),
            ));
        }
    };
    let hours = match pick(|t| t.business_hours.is_some()).and_then(|t| t.business_hours.as_ref()) {
        None => None,
        Some(spec) => {
            let tz = match pick(|t| t.timezone.is_some()).and_then(|t| t.timezone.as_ref()) {
                Some(name) => jiff::tz::TimeZone::get(name.get_ref().trim()).map_err(|_| {
                    at(
                        format!("{prefix}.timezone"),
                        name.span(),
                        format!(
                            "{} is not a time zone this system knows (an IANA name such as \"Europe/Lisbon\")",
                            shown(name.get_ref())
                        ),
                    )
                })?,
                None => jiff::tz::TimeZone::system(),
            };
            let h = BusinessHours::parse(spec.get_ref(), tz).map_err(|e| {
                at(
                    format!("{prefix}.business_hours"),
                    spec.span(),
                    e.to_string(),
                )
            })?;
            Some(Arc::new(h))
        }
    };
    Ok(Policy {
        first_response,
        resolution,
        warn_at,
        hours,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::{Config, Overrides};
    use convo_engine::sla::State;

    fn load(text: &str) -> Result<Config, String> {
        let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
        Config::from_toml_str(
            &format!("base_url = \"https://x.example\"\n{text}"),
            Path::new("/t/c.toml"),
            &Overrides::default(),
            &env,
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn targets_overrides_by_alias_and_hours() {
        let c = load(
            "[aliases]\n\"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90\" = \"Shop\"\n\
             [sla]\nfirst_response = \"5m\"\nresolution = \"1d\"\nwarn_at = 0.5\n\
             business_hours = \"Mon-Fri 09:00-18:00\"\ntimezone = \"Europe/Lisbon\"\n\
             [sla.sites.Shop]\nfirst_response = 60\n",
        )
        .unwrap();
        let s = &c.sla;
        assert_eq!(s.base.first_response, Some(300));
        assert_eq!(s.base.resolution, Some(86_400));
        assert_eq!(s.base.warn_at, 0.5);
        let shop: uuid::Uuid = "0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90".parse().unwrap();
        let p = s.policy(&shop);
        assert_eq!(
            (p.first_response, p.resolution, p.warn_at),
            (Some(60), Some(86_400), 0.5)
        );
        assert!(p.hours.is_some(), "a site inherits the business hours");
        assert_eq!(convo_engine::sla::state(30, 60, p.warn_at), State::Imminent);
    }

    #[test]
    fn absent_means_not_tracked() {
        let c = load("").unwrap();
        assert!(c.sla.is_empty());
        let c = load("[sla]\nresolution = \"4h\"\n").unwrap();
        assert_eq!(c.sla.base.first_response, None);
        assert_eq!(c.sla.base.warn_at, 0.8);
    }

    #[test]
    fn bad_values_name_file_line_and_key() {
        for (text, line, key, says) in [
            (
                "[sla]\nfirst_response = \"5 parsecs\"\n",
                3,
                "sla.first_response",
                "not a duration",
            ),
            (
                "[sla]\n\nresolution = 0\n",
                4,
                "sla.resolution",
                "more than 0",
            ),
            ("[sla]\nwarn_at = 80\n", 3, "sla.warn_at", "at most 1"),
            (
                "[sla]\nbusiness_hours = \"Mon-Fri 18:00-09:00\"\n",
                3,
                "sla.business_hours",
                "closes before",
            ),
            (
                "[sla]\nbusiness_hours = \"Mon 09:00-10:00\"\ntimezone = \"Mars/Olympus\"\n",
                4,
                "sla.timezone",
                "not a time zone",
            ),
            (
                "[sla]\ntimezone = \"UTC\"\n",
                3,
                "sla.timezone",
                "business_hours is not",
            ),
            (
                "[sla]\nfirst_response = \"5m\"\n[sla.sites.Nowhere]\nfirst_response = \"1m\"\n",
                4,
                "sla.sites.\"Nowhere\"",
                "neither a site UUID",
            ),
            (
                "[sla]\n[sla.sites.\"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90\"]\nwarn_at = 0\n",
                4,
                "warn_at",
                "above 0",
            ),
        ] {
            let e = load(text).unwrap_err();
            assert!(
                e.contains("/t/c.toml")
                    && e.contains(&format!("line {line}"))
                    && e.contains(key)
                    && e.contains(says),
                "{text:?}: {e}"
            );
        }
        let e = load("[sla]\nfirst_respons = \"5m\"\n").unwrap_err();
        assert!(e.contains("line 3") && e.contains("first_respons"), "{e}");
    }

    #[test]
    fn a_profile_lays_its_targets_over_the_top_level() {
        let text = "[sla]\nfirst_response = \"5m\"\nresolution = \"1d\"\n\
                    [profiles.night.sla]\nfirst_response = \"15m\"\n";
        let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
        let ov = Overrides {
            profile: Some("night".into()),
            ..Overrides::default()
        };
        let c = Config::from_toml_str(
            &format!("base_url = \"https://x.example\"\n{text}"),
            Path::new("/t/c.toml"),
            &ov,
            &env,
        )
        .unwrap();
        assert_eq!(c.sla.base.first_response, Some(900));
        assert_eq!(c.sla.base.resolution, Some(86_400));
    }
}
