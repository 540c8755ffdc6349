//! The order a list's rows follow, learned from the rows themselves: the spec promises none
//! (docs/design.md "Data"), so the union's merge ([`convo_query::query::merge`]) and the visitor
//! sync ([`convo_store::sync`]) both look at the rows they receive and take the first of
//! createdAt descending, createdAt ascending, updatedAt descending that every row follows.

use jiff::Timestamp;

use super::{Conversation, Row, Visitor};

/// A row's times, from which the service's order is learned.
pub trait Timed: Row {
    fn created(&self) -> Option<Timestamp>;
    fn updated(&self) -> Option<Timestamp>;
}

impl Timed for Conversation {
    fn created(&self) -> Option<Timestamp> {
        self.created_at.parsed()
    }
    fn updated(&self) -> Option<Timestamp> {
        self.updated_at.parsed()
    }
}

impl Timed for Visitor {
    fn created(&self) -> Option<Timestamp> {
        self.created_at.as_ref().and_then(|t| t.parsed())
    }
    fn updated(&self) -> Option<Timestamp> {
        None
    }
}

/// An order the service may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    CreatedDesc,
    CreatedAsc,
    UpdatedDesc,
}

impl Order {
    const ALL: [Order; 3] = [Order::CreatedDesc, Order::CreatedAsc, Order::UpdatedDesc];

    pub fn label(self) -> &'static str {
        match self {
            Order::CreatedDesc => "createdAt, newest first",
            Order::CreatedAsc => "createdAt, oldest first",
            Order::UpdatedDesc => "updatedAt, latest first",
        }
    }

    pub(crate) fn key<T: Timed>(self, r: &T) -> Option<Timestamp> {
        match self {
            Order::CreatedDesc | Order::CreatedAsc => r.created(),
            Order::UpdatedDesc => r.updated(),
        }
    }

    /// Whether `b` may follow `a` in this order.
    pub(crate) fn follows<T: Timed>(self, a: &T, b: &T) -> bool {
        match (self.key(a), self.key(b)) {
            (Some(x), Some(y)) => match self {
                Order::CreatedAsc => x <= y,
                _ => x >= y,
            },
            _ => false,
        }
    }

    /// Whether `a` comes before `b` (strictly): by the order's time, and rows of the same time
    /// by id in the same direction, as a keyset on (time, id) orders them (ascending ids
    /// oldest first, descending ids otherwise), so that a merge of streams gives ties in the
    /// service's own order.
    pub fn before<T: Timed>(self, a: &T, b: &T) -> bool {
        match (self.key(a), self.key(b)) {
            (Some(x), Some(y)) if x == y => match self {
                Order::CreatedAsc => a.id() < b.id(),
                _ => a.id() > b.id(),
            },
            (Some(x), Some(y)) => match self {
                Order::CreatedAsc => x < y,
                _ => x > y,
            },
            (None, Some(_)) => true,
            _ => false,
        }
    }

    pub fn index(self) -> usize {
        Order::ALL.iter().position(|o| *o == self).unwrap_or(0)
    }
}

/// Which of [`Order::CreatedDesc`], [`Order::CreatedAsc`], [`Order::UpdatedDesc`] `rows`
/// follow, coming after `prev` (the part's row before them, if any). A part of one row
/// follows every order; a time that cannot be read follows none.
pub fn orders_followed<T: Timed>(prev: Option<&T>, rows: &[T]) -> [bool; 3] {
    let mut fits = [true; 3];
    let mut before = prev;
    for row in rows {
        if let Some(p) = before {
            for (k, o) in Order::ALL.iter().enumerate() {
                fits[k] = fits[k] && o.follows(p, row);
            }
        }
        before = Some(row);
    }
    fits
}

/// The first known order every part follows (`fits` from [`orders_followed`]), if any.
pub fn common_order(fits: &[[bool; 3]]) -> Option<Order> {
    Order::ALL
        .iter()
        .enumerate()
        .find(|(k, _)| fits.iter().all(|f| f[*k]))
        .map(|(_, o)| *o)
}
