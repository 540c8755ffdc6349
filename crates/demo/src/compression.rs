//! How the demo server compresses its answers, as a real service would: zstd to a client that
//! takes it, else brotli, else gzip, at the levels CHANGELOG.md ("Performance history", "What each encoding
//! costs") chose for a page of 100 conversations.

use tower_http::CompressionLevel;
use tower_http::compression::CompressionLayer;

/// zstd's level: 1. On a page of 100 conversations it is both smaller (5,550 bytes against
/// 5,662 at zstd's default 3) and faster to make than the default.
pub const ZSTD_LEVEL: i32 = 1;

/// The inner layer: zstd only, at [`ZSTD_LEVEL`]. An answer it compressed carries its
/// `Content-Encoding`, which the outer layer leaves alone.
pub fn zstd() -> CompressionLayer {
    CompressionLayer::new()
        .no_br()
        .no_gzip()
        .no_deflate()
        .quality(CompressionLevel::Precise(ZSTD_LEVEL))
}

/// The outer layer, for clients that do not take zstd: brotli at 4 and gzip at 6
/// (tower-http's defaults, nginx's for brotli on the fly).
pub fn brotli_and_gzip() -> CompressionLayer {
    CompressionLayer::new().no_zstd().no_deflate()
}
