//! The walk over a document's text against the shape, gate by gate, and
//! the words of its refusals.

use serde_json::Value;
use smallvec::SmallVec;

use super::node::*;
use super::query::*;
use super::verdict::*;
use crate::json::pointer::{self, Step};
use crate::{Code, Rejection, outcome::message};

pub(super) type Verdicts = SmallVec<[Verdict; 4]>;

pub(super) struct Walk<'a> {
    pub(super) shape: &'a Shape,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    /// Keep the path and each subschema's reasons (the second walk only).
    pub(super) explain: bool,
    /// Check the bounds too (ranges, multiples, lengths, patterns and
    /// item counts): when the walk runs before serde or explains a
    /// refusal. After serde, serde and garde check them, but for an
    /// integer that may not fit 64 bits (see [`Walk::scalar`]).
    pub(super) bounds: bool,
    pub(super) path: Vec<Step>,
}

impl<'a> Walk<'a> {
    pub(super) fn new(shape: &'a Shape, bytes: &'a [u8], explain: bool, bounds: bool) -> Self {
        Walk {
            shape,
            bytes,
            pos: 0,
            explain,
            bounds,
            path: Vec::new(),
        }
    }

    pub(super) fn node(&self, id: Id) -> &'a Node {
        self.shape.node(id)
    }

    /// Refuses `verdict`, saying why if this walk explains.
    pub(super) fn refuse(&self, verdict: &mut Verdict, rank: Rank, code: Code, unknown: bool) {
        verdict.ok = false;
        if self.explain {
            verdict.why.push(Failure {
                rank,
                code,
                path: self.path.clone(),
                unknown,
            });
        }
    }

    /// Reads one value and gives each subschema of `set` its verdict.
    pub(super) fn value(&mut self, set: &[Id]) -> Verdicts {
        let mut verdicts: Verdicts = if let [id] = set
            && let node = self.node(*id)
            && node.any_of.is_empty()
            && node.all_of.is_empty()
        {
            // One subschema without unions: its own keywords decide.
            self.local(set)
        } else {
            let atoms = self.atoms(set);
            let local = self.local(&atoms);
            let mut memo: SmallVec<[Option<Verdict>; 8]> = SmallVec::from_elem(None, atoms.len());
            set.iter()
                .map(|id| accepts(self.shape, *id, &atoms, &local, &mut memo))
                .collect()
        };
        if self.explain {
            for verdict in &mut verdicts {
                if !verdict.ok && verdict.why.is_empty() {
                    self.refuse(verdict, Rank::Choice, Code::InvalidValue, false);
                }
            }
        }
        verdicts
    }

    /// Every subschema the verdicts on `set` depend on: the set and the
    /// branches of its unions, each read against the value at once. The
    /// set comes first, in its order.
    #[inline(always)]
    pub(super) fn atoms(&self, set: &[Id]) -> SmallVec<[Id; 8]> {
        self.shape.atoms(set)
    }

    /// Reads one value against each atom's own keywords (not its unions).
    pub(super) fn local(&mut self, atoms: &[Id]) -> Verdicts {
        self.skip_ws();
        let start = self.pos;
        let all = || SmallVec::from_elem(Verdict::yes(), atoms.len());
        let (kind, mut verdicts) = match self.peek() {
            Some(b'{') => (OBJECT, self.object(atoms)),
            Some(b'[') => (ARRAY, self.array(atoms)),
            first => (self.skip_scalar(first), all()),
        };
        let raw = self.bytes.get(start..self.pos).unwrap_or_default();
        for (verdict, id) in verdicts.iter_mut().zip(atoms) {
            let node = self.node(*id);
            if node.kinds & kind == 0 {
                // The members' reasons do not matter: the kind is wrong.
                verdict.why.clear();
                self.refuse(verdict, node.kind_rank(), Code::WrongType, false);
                continue;
            }
            if !verdict.ok {
                continue;
            }
            if let Err((rank, code)) = self.scalar(node, kind, raw) {
                self.refuse(verdict, rank, code, false);
            }
        }
        verdicts
    }

    /// A value's bounds (when this walk checks them) and choices, against
    /// one subschema whose kind it has.
    pub(super) fn scalar(&self, node: &Node, kind: u8, raw: &[u8]) -> Result<(), (Rank, Code)> {
        // An integer that may not fit 64 bits is compared even after serde
        // read it: serde_json reads a 128-bit integer from any integer that
        // fits it, past the range its schema states.
        let wide = kind == INTEGER && raw.len() > 19 && !crate::json::number::fits_64_bits(raw);
        let bounded =
            node.range != (None, None) || node.exclusive != (None, None) || node.multiple.is_some();
        if (self.bounds || wide) && kind & (INTEGER | FRACTION) != 0 && bounded {
            let text = core::str::from_utf8(raw).unwrap_or_default();
            if let Some(n) = Number::parse(text) {
                use core::cmp::Ordering::{self, Equal, Greater, Less};
                let past = |bound: Option<Number>, out: &[Ordering]| {
                    bound.is_some_and(|b| n.cmp(b).is_some_and(|o| out.contains(&o)))
                };
                if past(node.range.0, &[Less])
                    || past(node.range.1, &[Greater])
                    || past(node.exclusive.0, &[Less, Equal])
                    || past(node.exclusive.1, &[Greater, Equal])
                {
                    return Err((Rank::Shape, Code::OutOfRange));
                }
                if self.bounds && node.multiple.is_some_and(|m| !n.is_multiple_of(m)) {
                    return Err((Rank::Shape, Code::InvalidValue));
                }
            }
        }
        if self.bounds && kind == STRING && node.length != (None, None) {
            let chars = string_chars(raw);
            let short = node.length.0.is_some_and(|min| chars < min);
            let long = node.length.1.is_some_and(|max| chars > max);
            if short || long {
                return Err((Rank::Shape, Code::InvalidLength));
            }
        }
        if self.bounds
            && kind == STRING
            && let Some(pattern) = &node.pattern
            && !pattern.matches(&string_text(raw))
        {
            return Err((Rank::Shape, Code::PatternMismatch));
        }
        if self.bounds
            && let Some(excluded) = &node.excluded
            && serde_json::from_slice::<Value>(raw).is_ok_and(|value| same(excluded, &value))
        {
            return Err((Rank::Shape, Code::InvalidValue));
        }
        if chosen(node, kind, raw) {
            Ok(())
        } else {
            Err((Rank::Choice, Code::InvalidValue))
        }
    }

    // --- the quick walk: verdicts as bits, no reasons ---

    /// Like [`Self::value`], with one bit per subschema of `set`; `None`
    /// when a value has more subschemas than bits, for the full walk to
    /// decide.
    pub(super) fn quick_value(&mut self, set: &[Id]) -> Option<u64> {
        let atoms = self.atoms(set);
        if atoms.len() > 64 {
            return None;
        }
        let local = self.quick_local(&atoms)?;
        if atoms.len() == set.len() && atoms.iter().all(|id| self.node(*id).simple()) {
            return Some(local);
        }
        let mut known = 0u64;
        let mut value = 0u64;
        let mut bits = 0u64;
        for (i, id) in set.iter().enumerate() {
            if quick_accepts(self.shape, *id, &atoms, local, &mut known, &mut value) {
                bits |= 1 << i;
            }
        }
        Some(bits)
    }

    pub(super) fn quick_local(&mut self, atoms: &[Id]) -> Option<u64> {
        self.skip_ws();
        let start = self.pos;
        let all = if atoms.len() == 64 {
            u64::MAX
        } else {
            (1u64 << atoms.len()) - 1
        };
        let (kind, bits) = match self.peek() {
            Some(b'{') => (OBJECT, self.quick_object(atoms)?),
            Some(b'[') => (ARRAY, self.quick_array(atoms)?),
            first => (self.skip_scalar(first), all),
        };
        let raw = self.bytes.get(start..self.pos).unwrap_or_default();
        let mut out = 0u64;
        for (i, id) in atoms.iter().enumerate() {
            let node = self.node(*id);
            if bits & (1 << i) != 0
                && node.kinds & kind != 0
                && self.scalar(node, kind, raw).is_ok()
            {
                out |= 1 << i;
            }
        }
        Some(out)
    }

    pub(super) fn quick_object(&mut self, atoms: &[Id]) -> Option<u64> {
        self.pos += 1;
        let mut alive = 0u64;
        for (i, id) in atoms.iter().enumerate() {
            if self.node(*id).kinds & OBJECT != 0 {
                alive |= 1 << i;
            }
        }
        let mut found: SmallVec<[usize; 8]> = SmallVec::from_elem(0, atoms.len());
        let mut members = 0;
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = self.key();
            members += 1;
            let mut children: SmallVec<[Child; 8]> = SmallVec::new();
            for (i, (id, found)) in atoms.iter().zip(found.iter_mut()).enumerate() {
                let node = self.node(*id);
                let child = if alive & (1 << i) == 0 {
                    Child::Any
                } else if self.bounds && (node.unevaluated(&key) || node.name_out(&key)) {
                    Child::Never
                } else {
                    let (child, required) = node.member(&key);
                    *found += usize::from(required);
                    child
                };
                if child == Child::Never {
                    alive &= !(1 << i);
                }
                children.push(child);
            }
            alive = self.quick_member(alive, &children)?;
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
        for (i, (id, found)) in atoms.iter().zip(&found).enumerate() {
            let node = self.node(*id);
            if *found < node.required.len() || (self.bounds && node.entries_out(members)) {
                alive &= !(1 << i);
            }
        }
        Some(alive)
    }

    pub(super) fn quick_array(&mut self, atoms: &[Id]) -> Option<u64> {
        self.pos += 1;
        let mut alive = 0u64;
        let mut unique = 0u64;
        for (i, id) in atoms.iter().enumerate() {
            let node = self.node(*id);
            if node.kinds & ARRAY != 0 {
                alive |= 1 << i;
                unique |= u64::from(node.unique) << i;
            }
        }
        let mut items: SmallVec<[&'a [u8]; 8]> = SmallVec::new();
        let mut index = 0;
        loop {
            self.skip_ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            if alive == 0 {
                // Every atom refused: the rest is skipped, not judged (nor
                // counted: no count can revive an atom).
                self.skip_value();
                self.skip_ws();
                if self.peek() == Some(b',') {
                    self.pos += 1;
                }
                continue;
            }
            let start = self.pos;
            let mut children: SmallVec<[Child; 8]> = SmallVec::new();
            for (i, id) in atoms.iter().enumerate() {
                let node = self.node(*id);
                let child = if alive & (1 << i) == 0 {
                    Child::Any
                } else {
                    node.item(index)
                };
                if child == Child::Never {
                    alive &= !(1 << i);
                }
                children.push(child);
            }
            alive = self.quick_member(alive, &children)?;
            if unique & alive != 0 {
                let item = self.bytes.get(start..self.pos).unwrap_or_default();
                // An item written as one of the first few is a repeat
                // whatever else the array holds: the arrays that must
                // differ refuse here, and, if nothing else is alive, the
                // rest of the array is skipped, not judged.
                if crate::gate::structural::unique::written_before(&items, item) {
                    alive &= !unique;
                } else {
                    items.push(item);
                }
            }
            index += 1;
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
        if self.bounds {
            for (i, id) in atoms.iter().enumerate() {
                if self.node(*id).counts_out(index) {
                    alive &= !(1 << i);
                }
            }
        }
        if unique & alive != 0 && !crate::gate::structural::unique::all_different(&items) {
            alive &= !unique;
        }
        Some(alive)
    }

    pub(super) fn quick_member(&mut self, mut alive: u64, children: &[Child]) -> Option<u64> {
        let mut set: SmallVec<[Id; 8]> = SmallVec::new();
        for (i, child) in children.iter().enumerate() {
            if let (true, Child::Node(id)) = (alive & (1 << i) != 0, child)
                && !set.contains(id)
            {
                set.push(*id);
            }
        }
        if set.is_empty() {
            self.skip_value();
            return Some(alive);
        }
        let members = self.quick_value(&set)?;
        for (i, child) in children.iter().enumerate() {
            if let (true, Child::Node(id)) = (alive & (1 << i) != 0, child)
                && let Some(j) = set.iter().position(|s| s == id)
                && members & (1 << j) == 0
            {
                alive &= !(1 << i);
            }
        }
        Some(alive)
    }

    pub(super) fn object(&mut self, atoms: &[Id]) -> Verdicts {
        self.pos += 1;
        let mut verdicts: Verdicts = atoms
            .iter()
            .map(|id| Verdict {
                ok: self.node(*id).kinds & OBJECT != 0,
                why: Vec::new(),
            })
            .collect();
        let mut found: SmallVec<[usize; 8]> = SmallVec::from_elem(0, atoms.len());
        let mut seen: Vec<String> = Vec::new();
        let mut members = 0;
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = self.key();
            members += 1;
            if self.explain {
                let text = String::from_utf8_lossy(&key).into_owned();
                seen.push(text.clone());
                self.path.push(Step::Key(text));
            }
            let mut children: SmallVec<[Child; 8]> = SmallVec::new();
            for ((verdict, id), found) in verdicts.iter_mut().zip(atoms).zip(found.iter_mut()) {
                let node = self.node(*id);
                let child = if !self.reads(verdict, node, OBJECT) {
                    Child::Any
                } else if self.bounds && (node.unevaluated(&key) || node.name_out(&key)) {
                    Child::Never
                } else {
                    let (child, required) = node.member(&key);
                    *found += usize::from(required);
                    child
                };
                if child == Child::Never {
                    self.refuse(verdict, Rank::Shape, Code::UnknownField, true);
                }
                children.push(child);
            }
            self.member(&mut verdicts, &children);
            if self.explain {
                self.path.pop();
            }
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
        for ((verdict, id), found) in verdicts.iter_mut().zip(atoms).zip(&found) {
            let node = self.node(*id);
            if self.reads(verdict, node, OBJECT) && *found < node.required.len() {
                let missing = node
                    .required
                    .iter()
                    .find(|r| !seen.iter().any(|s| **s == ***r));
                if let (true, Some(missing)) = (self.explain, missing) {
                    // A missing tag says no more than a wrong one.
                    let tag = node.properties.iter().any(|(name, child, _)| {
                        **name == **missing
                            && matches!(child, Child::Node(id) if !self.node(*id).choices.is_empty())
                    });
                    let rank = if tag { Rank::Choice } else { Rank::Shape };
                    self.path.push(Step::Key(missing.to_string()));
                    self.refuse(verdict, rank, Code::MissingField, false);
                    self.path.pop();
                } else {
                    verdict.ok = false;
                }
            }
        }
        if self.bounds {
            for (verdict, id) in verdicts.iter_mut().zip(atoms) {
                let node = self.node(*id);
                if node.entries_out(members) && self.reads(verdict, node, OBJECT) {
                    self.refuse(verdict, Rank::Shape, Code::InvalidLength, false);
                }
            }
        }
        verdicts
    }

    pub(super) fn array(&mut self, atoms: &[Id]) -> Verdicts {
        self.pos += 1;
        let mut verdicts: Verdicts = atoms
            .iter()
            .map(|id| Verdict {
                ok: self.node(*id).kinds & ARRAY != 0,
                why: Vec::new(),
            })
            .collect();
        let unique = atoms.iter().any(|id| self.node(*id).unique);
        let mut items: SmallVec<[&'a [u8]; 8]> = SmallVec::new();
        // Whether an item was written as one of the first few: a repeat,
        // refused at the end as any other, with no more items kept.
        let mut repeated = false;
        let mut index = 0;
        loop {
            self.skip_ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            let start = self.pos;
            if self.explain {
                self.path.push(Step::Index(index));
            }
            let mut children: SmallVec<[Child; 8]> = SmallVec::new();
            for (verdict, id) in verdicts.iter_mut().zip(atoms) {
                let node = self.node(*id);
                let child = if !self.reads(verdict, node, ARRAY) {
                    Child::Any
                } else {
                    node.item(index)
                };
                if child == Child::Never {
                    self.refuse(verdict, Rank::Shape, Code::InvalidLength, false);
                }
                children.push(child);
            }
            self.member(&mut verdicts, &children);
            if self.explain {
                self.path.pop();
            }
            if unique && !repeated {
                let item = self.bytes.get(start..self.pos).unwrap_or_default();
                repeated = crate::gate::structural::unique::written_before(&items, item);
                if !repeated {
                    items.push(item);
                }
            }
            index += 1;
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
        if self.bounds {
            for (verdict, id) in verdicts.iter_mut().zip(atoms) {
                let node = self.node(*id);
                if node.counts_out(index) && self.reads(verdict, node, ARRAY) {
                    self.refuse(verdict, Rank::Shape, Code::InvalidLength, false);
                }
            }
        }
        if unique && (repeated || !crate::gate::structural::unique::all_different(&items)) {
            for (verdict, id) in verdicts.iter_mut().zip(atoms) {
                let node = self.node(*id);
                if node.unique && self.reads(verdict, node, ARRAY) {
                    self.refuse(verdict, Rank::Shape, Code::InvalidValue, false);
                }
            }
        }
        verdicts
    }

    /// Whether an atom's members are still worth reading: it takes this
    /// kind and has not refused yet, or this walk explains and wants every
    /// reason (a variant refused for an unknown key may also have a tag
    /// that names another variant, which makes it the wrong branch to blame).
    pub(super) fn reads(&self, verdict: &Verdict, node: &Node, kind: u8) -> bool {
        node.kinds & kind != 0 && (verdict.ok || self.explain)
    }

    /// Reads the scalar at `pos`, whose first byte is `first`: its kind.
    pub(super) fn skip_scalar(&mut self, first: Option<u8>) -> u8 {
        match first {
            Some(b'"') => {
                self.skip_string();
                STRING
            }
            Some(b't') => {
                self.pos += 4;
                BOOLEAN
            }
            Some(b'f') => {
                self.pos += 5;
                BOOLEAN
            }
            Some(b'n') => {
                self.pos += 4;
                NULL
            }
            _ => self.number(),
        }
    }

    /// Reads one member against the subschema each live atom gives it.
    pub(super) fn member(&mut self, verdicts: &mut Verdicts, children: &[Child]) {
        if let ([verdict], [Child::Node(id)]) = (verdicts.as_mut_slice(), children) {
            self.skip_ws();
            let node = self.node(*id);
            if node.simple() && !matches!(self.peek(), Some(b'{' | b'[')) {
                self.one_scalar(verdict, node);
                return;
            }
        }
        let mut set: SmallVec<[Id; 8]> = SmallVec::new();
        for child in children {
            if let Child::Node(id) = child
                && !set.contains(id)
            {
                set.push(*id);
            }
        }
        if set.is_empty() {
            self.skip_value();
            return;
        }
        let members = self.value(&set);
        for (verdict, child) in verdicts.iter_mut().zip(children) {
            if let Child::Node(id) = child
                && let Some(member) = set
                    .iter()
                    .position(|s| s == id)
                    .and_then(|i| members.get(i))
                && !member.ok
            {
                verdict.ok = false;
                verdict.why.extend(member.why.iter().cloned());
            }
        }
    }

    /// [`Self::member`] of a scalar against one subschema without unions,
    /// which alone decides: what [`Self::value`] and [`Self::local`] would
    /// say, without a verdict for each atom to make, move and drop (an
    /// array of many scalars is read item by item here).
    pub(super) fn one_scalar(&mut self, verdict: &mut Verdict, node: &Node) {
        let start = self.pos;
        let kind = self.skip_scalar(self.peek());
        let raw = self.bytes.get(start..self.pos).unwrap_or_default();
        let refused = if node.kinds & kind == 0 {
            Some((node.kind_rank(), Code::WrongType))
        } else {
            self.scalar(node, kind, raw).err()
        };
        if let Some((rank, code)) = refused {
            self.refuse(verdict, rank, code, false);
        }
    }

    /// The refusal to report: the first reason that is not a tag naming
    /// another variant, or else the first reason.
    pub(super) fn rejection(&self, verdict: &Verdict, schema: &Value) -> Rejection {
        let failure = verdict
            .why
            .iter()
            .find(|f| f.rank == Rank::Shape)
            .or_else(|| verdict.why.first());
        let Some(failure) = failure else {
            return Rejection::new(
                Code::InvalidValue,
                message::for_value(Code::InvalidValue, "", schema),
            );
        };
        if failure.unknown
            && let Some((Step::Key(field), parent)) = failure.path.split_last()
        {
            let parent_at = pointer::exact_of_steps(parent);
            let at = pointer::shown(&pointer::exact_of_steps(&failure.path)).to_owned();
            // An integer key past its map's range is a number out of range,
            // not a field the model misnamed.
            if let Some(text) = message::key_out_of_range(&parent_at, field, schema) {
                return Rejection::new(Code::OutOfRange, text).at(at);
            }
            let text = message::unknown(&parent_at, Some(field), schema);
            return Rejection::new(Code::UnknownField, text).at(at);
        }
        // The message reads the schema at the exact place; the rejection
        // shows only what may be echoed of it.
        let at = pointer::exact_of_steps(&failure.path);
        let text = match failure.code {
            Code::MissingField => message::missing(&at, schema),
            code => message::for_value(code, &at, schema),
        };
        Rejection::new(failure.code, text).at(pointer::shown(&at).to_owned())
    }

    // --- reading the document; gate 1 has proven it well formed ---

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Reads `"key":` and returns the key's bytes, unescaped. Gate 1 has
    /// proven them UTF-8.
    pub(super) fn key(&mut self) -> std::borrow::Cow<'a, [u8]> {
        let start = self.pos;
        let escaped = self.skip_string();
        let raw: &'a [u8] = self.bytes.get(start..self.pos).unwrap_or_default();
        let key = if escaped {
            std::borrow::Cow::Owned(
                serde_json::from_slice::<String>(raw)
                    .unwrap_or_default()
                    .into_bytes(),
            )
        } else {
            std::borrow::Cow::Borrowed(raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default())
        };
        self.skip_ws();
        if self.peek() == Some(b':') {
            self.pos += 1;
        }
        key
    }

    /// Skips a string; says whether it has escapes.
    pub(super) fn skip_string(&mut self) -> bool {
        self.pos += 1;
        let mut escaped = false;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.pos += 1;
                }
                _ => {}
            }
        }
        escaped
    }

    /// Reads a number: an integer, or a fraction unless its value is whole.
    pub(super) fn number(&mut self) -> u8 {
        let start = self.pos;
        let mut plain = true;
        while let Some(b) = self.peek() {
            match b {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => plain = false,
                _ => break,
            }
            self.pos += 1;
        }
        if plain {
            return INTEGER;
        }
        let text = core::str::from_utf8(self.bytes.get(start..self.pos).unwrap_or_default())
            .unwrap_or_default();
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() && n.fract() == 0.0 => INTEGER,
            Ok(n) if n.is_finite() => FRACTION,
            // Past f64: whichever the schema wants; serde decides.
            _ => INTEGER | FRACTION,
        }
    }

    pub(super) fn skip_value(&mut self) {
        self.skip_ws();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return,
                Some(b'"') => {
                    self.skip_string();
                }
                Some(b'{' | b'[') => {
                    depth += 1;
                    self.pos += 1;
                }
                Some(b'}' | b']') => {
                    depth = depth.saturating_sub(1);
                    self.pos += 1;
                }
                Some(_) if depth > 0 => self.pos += 1,
                Some(_) => {
                    // A scalar at the top: read to its end.
                    while let Some(b) = self.peek() {
                        if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                            break;
                        }
                        self.pos += 1;
                    }
                    return;
                }
            }
            if depth == 0 {
                return;
            }
        }
    }
}

/// The text of the JSON string written as `raw` (with its quotes), escapes
/// decoded; gate 1 has proven it UTF-8.
pub(super) fn string_text(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains(&b'\\') {
        return std::borrow::Cow::Borrowed(core::str::from_utf8(inner).unwrap_or_default());
    }
    std::borrow::Cow::Owned(serde_json::from_slice::<String>(raw).unwrap_or_default())
}

/// The characters of a JSON string (with its quotes), as JSON Schema counts
/// them: code points, an escape being the one it stands for.
pub(super) fn string_chars(raw: &[u8]) -> u64 {
    string_text(raw).chars().count() as u64
}
