//! Reading a config file: its `base` chain laid over, errors blamed on the file and line that
//! holds the bad key, and the bare `[selfplay]` files `damas selfplay --config` reads.

use super::TrainConfig;
use damas_nn::DeviceChoice;
use damas_rules::Variant;
use damas_selfplay::SelfPlayConfig;
use damas_selfplay::{ConfigError, ConfigProblem};
use std::path::{Path, PathBuf};

/// A config file read: the config, and its text (copied into the run).
#[derive(Clone, Debug)]
pub struct ConfigFile {
    /// The config.
    pub config: TrainConfig,
    /// The file's text.
    pub text: String,
}

/// The key by which a config file names the config it changes (a path relative to the file):
/// the file's keys are laid over the base's, table by table, so that a variation of a config
/// states only what differs.
pub const BASE_KEY: &str = "base";

impl ConfigFile {
    /// Reads and checks a config file.
    pub fn read(path: &Path) -> Result<ConfigFile, ConfigError> {
        Self::read_on(path, None)
    }

    /// Reads and checks a config file, with `device` (from the command line) in place of the
    /// file's `device` key when given. A file with a `base` key is merged over its base, and
    /// the text kept is the merged config, complete without the base.
    pub fn read_on(path: &Path, device: Option<DeviceChoice>) -> Result<ConfigFile, ConfigError> {
        let text = read_text(path)?;
        let (text, layers) = match toml::from_str::<toml::Table>(&text) {
            Ok(table) if table.contains_key(BASE_KEY) => {
                let (merged, layers) = merged_table(path, &text, table)?;
                let merged = toml::to_string(&merged).map_err(|e| ConfigError::Invalid {
                    path: path.to_path_buf(),
                    problem: ConfigProblem::Syntax(e.to_string()),
                })?;
                let text = format!("# {} merged over its base\n{merged}", path.display());
                (text, layers)
            }
            // Text without a base, or malformed: parsed as it is, for the parser's message.
            _ => (text, Vec::new()),
        };
        let config = TrainConfig::parse_on(&text, device)
            .map_err(|problem| blame(path, &layers, problem))?;
        Ok(ConfigFile { config, text })
    }

    /// The same config with `distributed.external_selfplay` on, in its text too: the run's
    /// copy then says so, and a learner resumed from the store alone collects workers' games
    /// instead of playing its own. A text without a `[distributed]` table gets one at its end
    /// (its comments kept); otherwise the text is written anew from its values.
    pub fn with_external_selfplay(mut self) -> ConfigFile {
        self.config.distributed.external_selfplay = true;
        let Ok(mut table) = toml::from_str::<toml::Table>(&self.text) else {
            return self;
        };
        if !table.contains_key("distributed") {
            self.text = format!(
                "{}\n\n[distributed]\nexternal_selfplay = true\n",
                self.text.trim_end()
            );
        } else if let Some(toml::Value::Table(distributed)) = table.get_mut("distributed") {
            distributed.insert("external_selfplay".into(), toml::Value::Boolean(true));
            if let Ok(text) = toml::to_string(&table) {
                self.text = format!("# with distributed.external_selfplay = true\n{text}");
            }
        }
        self
    }
}

/// Self-play settings read from a file: a run config's `[selfplay]` table and variant, or a
/// bare `[selfplay]` table's keys (`damas selfplay --config`).
#[derive(Clone, Debug)]
pub struct SelfPlaySettings {
    /// The self-play settings.
    pub selfplay: SelfPlayConfig,
    /// The variant, when the file is a run config.
    pub variant: Option<Variant>,
}

impl SelfPlaySettings {
    /// Reads `path` as a run config when it looks like one (a `variant`, `name` or `base`
    /// key), as a `[selfplay]` table when it holds only that, otherwise as the keys of a
    /// `[selfplay]` table; batch sizes it leaves out follow `device`.
    pub fn read(path: &Path, device: DeviceChoice) -> Result<Self, ConfigError> {
        let text = read_text(path)?;
        let table = toml::from_str::<toml::Table>(&text).ok();
        let has = |key: &str| table.as_ref().is_some_and(|t| t.contains_key(key));
        if ["variant", "name", BASE_KEY].iter().any(|key| has(key)) {
            let file = ConfigFile::read_on(path, Some(device))?;
            return Ok(SelfPlaySettings {
                selfplay: file.config.selfplay,
                variant: Some(file.config.variant),
            });
        }
        let invalid = |problem| ConfigError::Invalid {
            path: path.to_path_buf(),
            problem,
        };
        let selfplay = match table.as_ref().and_then(|t| t.get("selfplay")) {
            Some(toml::Value::Table(inner)) if table.as_ref().is_some_and(|t| t.len() == 1) => {
                let inner = toml::to_string(inner)
                    .map_err(|e| invalid(ConfigProblem::Syntax(e.to_string())))?;
                SelfPlayConfig::parse(&inner, device).map_err(invalid)?
            }
            _ => SelfPlayConfig::read(path, device)?,
        };
        Ok(SelfPlaySettings {
            selfplay,
            variant: None,
        })
    }
}

/// A file's text.
fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// One file of a `base` chain, as read.
struct Layer {
    /// The file.
    path: PathBuf,
    /// The file whose `base` key names it (none for the file given).
    named_by: Option<PathBuf>,
    /// Its keys, without `base`.
    table: toml::Table,
}

impl Layer {
    /// `problem`, found in this file, as the error of the file given: through the chain of bases
    /// when this is one of them.
    fn error(&self, problem: ConfigProblem) -> ConfigError {
        let invalid = ConfigError::Invalid {
            path: self.path.clone(),
            problem,
        };
        match &self.named_by {
            None => invalid,
            Some(named_by) => ConfigError::Base {
                path: named_by.clone(),
                base: self.path.clone(),
                source: Box::new(invalid),
            },
        }
    }

    /// Whether this file sets `key` (dotted, with its sections: `selfplay.search.c_puct`).
    fn sets(&self, key: &str) -> bool {
        let mut table = &self.table;
        let mut parts = key.split('.').peekable();
        while let Some(part) = parts.next() {
            match (table.get(part), parts.peek()) {
                (Some(_), None) => return true,
                (Some(toml::Value::Table(inner)), Some(_)) => table = inner,
                _ => return false,
            }
        }
        false
    }
}

/// The error of a merged config's `problem`, naming the file of the chain that sets the bad
/// value (the first that sets it, as that one wins), or the file given when none does.
fn blame(path: &Path, layers: &[Layer], problem: ConfigProblem) -> ConfigError {
    let culprit = match &problem {
        ConfigProblem::Value(invalid) => layers.iter().find(|layer| layer.sets(&invalid.key)),
        _ => None,
    };
    match culprit {
        Some(layer) => layer.error(problem),
        None => ConfigError::Invalid {
            path: path.to_path_buf(),
            problem,
        },
    }
}

/// `table` (read from `path`, whose text is `text`) laid over its base, the base over its own
/// base, and so on; with the files of the chain, the file given first. Each file is checked
/// on its own against the schema as it is read, so that an unknown key or a value of the
/// wrong type is reported at its line in its file, not at a line of the merged text.
fn merged_table(
    path: &Path,
    text: &str,
    table: toml::Table,
) -> Result<(toml::Table, Vec<Layer>), ConfigError> {
    let mut chain = vec![Layer {
        path: path.to_path_buf(),
        named_by: None,
        table,
    }];
    let identity = |path: &Path| std::fs::canonicalize(path).unwrap_or(path.to_path_buf());
    let mut seen = vec![identity(path)];
    let mut text = text.to_string();
    loop {
        let layer = chain.last_mut().expect("the file itself");
        check_alone(&text).map_err(|problem| layer.error(problem))?;
        let Some(base) = layer.table.remove(BASE_KEY) else {
            break;
        };
        let file = layer.path.clone();
        let base = match base {
            toml::Value::String(base) => file.parent().unwrap_or(Path::new("")).join(base),
            other => return Err(layer.error(ConfigProblem::BaseNotAPath(other.to_string()))),
        };
        if seen.contains(&identity(&base)) {
            let names: Vec<String> = chain.iter().map(|l| l.path.display().to_string()).collect();
            return Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                problem: ConfigProblem::BaseCycle(format!(
                    "{} -> {}",
                    names.join(" -> "),
                    base.display()
                )),
            });
        }
        seen.push(identity(&base));
        text = read_text(&base).map_err(|source| ConfigError::Base {
            path: file.clone(),
            base: base.clone(),
            source: Box::new(source),
        })?;
        let mut next = Layer {
            path: base,
            named_by: Some(file),
            table: toml::Table::new(),
        };
        next.table =
            toml::from_str(&text).map_err(|e| next.error(ConfigProblem::Syntax(e.to_string())))?;
        chain.push(next);
    }
    let mut merged = toml::Table::new();
    for layer in chain.iter().rev() {
        lay_over(&mut merged, layer.table.clone());
    }
    Ok((merged, chain))
}

/// Checks one file of a chain against the schema on its own: unknown keys and values of the
/// wrong type. Keys it leaves to its bases (required ones it does not give) are not its
/// errors, and its `base` key is blanked out in place, so that lines and columns stay.
fn check_alone(text: &str) -> Result<(), ConfigProblem> {
    match toml::from_str::<TrainConfig>(&without_base_key(text)) {
        Err(e) if !e.message().starts_with("missing field") => {
            Err(ConfigProblem::Syntax(e.to_string()))
        }
        _ => Ok(()),
    }
}

/// `text` with its top-level `base` key and value replaced by spaces, every line kept.
fn without_base_key(text: &str) -> String {
    let Ok(document) = toml::de::DeTable::parse(text) else {
        return text.to_string();
    };
    let Some(span) = document
        .get_ref()
        .iter()
        .find(|(key, _)| key.get_ref() == BASE_KEY)
        .map(|(key, value)| key.span().start..value.span().end)
    else {
        return text.to_string();
    };
    let mut blanked = text.to_string();
    let spaces: String = text[span.clone()]
        .chars()
        .map(|c| if matches!(c, '\n' | '\r') { c } else { ' ' })
        .collect();
    blanked.replace_range(span, &spaces);
    blanked
}

/// Lays `over`'s keys over `base`'s: tables present in both merge key by key, every other
/// value of `over` replaces the base's.
fn lay_over(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(value)) => lay_over(inner, value),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}
