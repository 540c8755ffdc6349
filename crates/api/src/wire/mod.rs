//! The fast paths between the service's bytes and the row types of [`crate::model`]: plain JSON
//! read a word at a time ([`scan`]), the page envelope cut into its rows ([`envelope`]), UTC
//! seconds read and written without a calendar library ([`time`]). Each gives exactly what the
//! general path (serde, jiff) gives, and is tested against it; they exist because on long
//! walks the general path was most of `convo list`'s time (benches/decode.rs measures them).

pub mod envelope;
pub mod scan;
pub mod time;
