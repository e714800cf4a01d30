//! A reader of TensorBoard event files, to check what a run logged.
//!
//! An event file is a sequence of TFRecords: a little-endian u64 length, a masked CRC-32C of
//! the length, the bytes of an `Event` protocol buffer, and a masked CRC-32C of those bytes.

use std::path::Path;

/// One value read back from an event file.
#[derive(Clone, Debug, PartialEq)]
pub struct Logged {
    /// The tag.
    pub tag: String,
    /// The step.
    pub step: i64,
    /// The scalar (for histograms: the number of values).
    pub value: f64,
    /// Whether it is a histogram.
    pub histogram: bool,
}

/// A protocol-buffer field: number, and varint value or bytes.
enum Field<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
    Fixed32(u32),
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn fields(bytes: &[u8]) -> Option<Vec<(u64, Field<'_>)>> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < bytes.len() {
        let key = varint(bytes, &mut at)?;
        let field = match key & 7 {
            0 => Field::Varint(varint(bytes, &mut at)?),
            1 => {
                let v = u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?);
                at += 8;
                Field::Fixed64(v)
            }
            2 => {
                let len = varint(bytes, &mut at)? as usize;
                let v = bytes.get(at..at + len)?;
                at += len;
                Field::Bytes(v)
            }
            5 => {
                let v = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?);
                at += 4;
                Field::Fixed32(v)
            }
            _ => return None,
        };
        out.push((key >> 3, field));
    }
    Some(out)
}

/// Reads every scalar and histogram of an event file; `None` if the file is not one.
pub fn read_events(bytes: &[u8]) -> Option<Vec<Logged>> {
    let mut at = 0;
    let mut logged = Vec::new();
    while at < bytes.len() {
        let len = u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?) as usize;
        let event = bytes.get(at + 12..at + 12 + len)?;
        at += 12 + len + 4;
        let mut step = 0;
        let mut summary = None;
        for (number, field) in fields(event)? {
            match (number, field) {
                (2, Field::Varint(v)) => step = v as i64,
                (5, Field::Bytes(b)) => summary = Some(b),
                _ => {}
            }
        }
        let Some(summary) = summary else { continue };
        for (number, field) in fields(summary)? {
            let (1, Field::Bytes(value)) = (number, field) else {
                continue;
            };
            let mut entry = Logged {
                tag: String::new(),
                step,
                value: 0.0,
                histogram: false,
            };
            for (number, field) in fields(value)? {
                match (number, field) {
                    (1, Field::Bytes(tag)) => entry.tag = String::from_utf8_lossy(tag).into(),
                    (2, Field::Fixed32(bits)) => entry.value = f32::from_bits(bits) as f64,
                    (5, Field::Bytes(histo)) => {
                        entry.histogram = true;
                        for (number, field) in fields(histo)? {
                            if let (3, Field::Fixed64(bits)) = (number, field) {
                                entry.value = f64::from_bits(bits);
                            }
                        }
                    }
                    _ => {}
                }
            }
            logged.push(entry);
        }
    }
    Some(logged)
}

/// Reads every event file in a log directory, in file-name order.
pub fn read_dir(dir: &Path) -> std::io::Result<Vec<Logged>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("events.out.tfevents"))
        })
        .collect();
    files.sort();
    let mut all = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file)?;
        let events = read_events(&bytes).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: not a TensorBoard event file", file.display()),
            )
        })?;
        all.extend(events);
    }
    Ok(all)
}
