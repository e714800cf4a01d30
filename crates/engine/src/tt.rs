//! The transposition table: one slot per index, replaced by depth and age.

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact value.
    Exact,
    /// At least this (the search failed high).
    Lower,
    /// At most this (the search failed low).
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The full Zobrist hash of the position.
    pub key: u64,
    /// The score, from the side to move's view.
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: i16,
    /// How the score bounds the value.
    pub bound: Bound,
    /// Index of the best move in the position's generated move list (`u16::MAX`: none).
    pub best: u16,
    age: u8,
}

/// A fixed-size table of search results keyed by Zobrist hash.
pub struct Table {
    slots: Vec<Option<Entry>>,
    age: u8,
}

impl Table {
    /// A table of about `megabytes` MiB (at least one slot).
    pub fn new(megabytes: usize) -> Self {
        let slot = std::mem::size_of::<Option<Entry>>();
        let count = (megabytes * 1024 * 1024 / slot).max(1).next_power_of_two() / 2;
        Table {
            slots: vec![None; count.max(1)],
            age: 0,
        }
    }

    /// Starts a new search: older entries become the first to be replaced.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.index(key)].filter(|entry| entry.key == key)
    }

    /// Stores a result, unless the slot holds a deeper one from the current search.
    #[inline]
    pub fn store(&mut self, key: u64, score: i32, depth: i16, bound: Bound, best: u16) {
        let index = self.index(key);
        let age = self.age;
        let replace = match &self.slots[index] {
            None => true,
            Some(old) => old.age != age || old.key == key || depth >= old.depth,
        };
        if replace {
            self.slots[index] = Some(Entry {
                key,
                score,
                depth,
                bound,
                best,
                age,
            });
        }
    }
}
