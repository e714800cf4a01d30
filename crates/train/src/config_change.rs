//! What changed between the config a run started with and the one it is resumed with.
//!
//! A run keeps the config it was started with (`config.toml` in the run). Resuming it with a
//! config that differs would silently continue another recipe in the same directory (a copied
//! file that kept the `name` key does exactly that), so the loop lists the differences and
//! refuses them unless told to accept ([`ConfigChanges`]). The keys that say where and how long
//! a run goes on ([`BUDGET_KEYS`], [`FREE_SECTIONS`]) may change on any resume: they extend or move a run, they do
//! not change what it learns.

use crate::config::TrainConfig;
use serde_json::Value;
use std::fmt;

/// Keys a resumed run may change without being told: the device it runs on and its budget
/// (and every key of the `[store]` section, [`FREE_SECTIONS`]).
pub const BUDGET_KEYS: [&str; 3] = ["device", "generations", "minutes"];

/// Sections whose keys a resumed run may change without being told: how it reaches its store.
pub const FREE_SECTIONS: [&str; 1] = ["store"];

/// What a resume does with a config that differs from the run's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConfigChanges {
    /// Refuse to resume, listing the keys that differ (the default).
    #[default]
    Refuse,
    /// Resume with the new values, listing the keys that differ in the run's log.
    Accept,
}

/// One key whose value differs.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigChange {
    /// The dotted key, such as `training.optimizer`.
    pub key: String,
    /// Its value in the run's config (`None`: absent).
    pub before: Option<Value>,
    /// Its value in the new config (`None`: absent).
    pub after: Option<Value>,
}

impl ConfigChange {
    /// Whether the key is one of the budget keys a resume may change freely.
    pub fn is_budget(&self) -> bool {
        BUDGET_KEYS.contains(&self.key.as_str())
            || FREE_SECTIONS.iter().any(|section| {
                self.key
                    .strip_prefix(section)
                    .is_some_and(|rest| rest.starts_with('.'))
            })
    }
}

impl fmt::Display for ConfigChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |value: &Option<Value>| match value {
            None | Some(Value::Null) => "(not set)".to_string(),
            Some(value) => value.to_string(),
        };
        write!(
            f,
            "{} {} -> {}",
            self.key,
            show(&self.before),
            show(&self.after)
        )
    }
}

/// The keys whose effective values differ between `before` and `after` (defaults filled in,
/// so a key written out with its default value is no change), in key order.
pub fn config_changes(before: &TrainConfig, after: &TrainConfig) -> Vec<ConfigChange> {
    let mut old = Vec::new();
    let mut new = Vec::new();
    flatten(
        "",
        &serde_json::to_value(before).expect("serializable"),
        &mut old,
    );
    flatten(
        "",
        &serde_json::to_value(after).expect("serializable"),
        &mut new,
    );
    let mut keys: Vec<&String> = old.iter().chain(&new).map(|(key, _)| key).collect();
    keys.sort();
    keys.dedup();
    let find = |list: &[(String, Value)], key: &str| {
        list.iter()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value.clone())
    };
    keys.into_iter()
        .filter_map(|key| {
            let (before, after) = (find(&old, key), find(&new, key));
            (before != after).then(|| ConfigChange {
                key: key.clone(),
                before,
                after,
            })
        })
        .collect()
}

/// `value`'s leaves under dotted keys (objects are opened, arrays kept whole).
fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                let key = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&key, value, out);
            }
        }
        leaf => out.push((prefix.to_string(), leaf.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "name = \"t\"\nvariant = \"russian\"\ngenerations = 3\n\
                        games_per_generation = 4\n";

    fn parse(text: &str) -> TrainConfig {
        TrainConfig::parse(text).expect("valid config")
    }

    #[test]
    fn an_equal_config_written_differently_has_no_changes() {
        let spelled_out = format!("{BASE}seed = 0\n# a comment\n");
        assert!(config_changes(&parse(BASE), &parse(&spelled_out)).is_empty());
    }

    #[test]
    fn changed_keys_are_listed_with_both_values_and_budget_keys_are_told_apart() {
        let changed = format!("{BASE}[training]\noptimizer = \"sgd\"\n")
            .replace("generations = 3", "generations = 8");
        let changes = config_changes(&parse(BASE), &parse(&changed));
        let keys: Vec<&str> = changes.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["generations", "training.optimizer"]);
        assert!(changes[0].is_budget());
        assert!(!changes[1].is_budget());
        assert_eq!(changes[0].to_string(), "generations 3 -> 8");
        assert!(
            changes[1].to_string().ends_with("-> \"sgd\""),
            "{}",
            changes[1]
        );
    }

    #[test]
    fn the_store_settings_may_change_on_any_resume() {
        let changed = format!("{BASE}[store]\nretries = 3\nbackoff_max_seconds = 2\n");
        let changes = config_changes(&parse(BASE), &parse(&changed));
        let keys: Vec<&str> = changes.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["store.backoff_max_seconds", "store.retries"]);
        assert!(changes.iter().all(ConfigChange::is_budget));
    }
}
