//! The exporter's HTTP side: `/metrics` (the Prometheus text format, version 0.0.4),
//! `/healthz` (liveness: the process serves), `/` (a page for people). Only GET (and HEAD);
//! a scrape reads [`State`] and never sends a request to the service.

use std::sync::Arc;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use super::state::State;
use convo_api::Client;

/// The content type of the text format Prometheus scrapes.
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The routes, sharing the state and the client (for its request counts and budget only).
pub fn router(state: Arc<State>, client: Client) -> Router {
    let shared = Arc::new((state, client));
    let metrics = {
        let s = shared.clone();
        move || {
            let s = s.clone();
            async move {
                (
                    [(header::CONTENT_TYPE, METRICS_CONTENT_TYPE)],
                    s.0.metrics(s.1.stats(), &s.1.budget().snapshot()),
                )
            }
        }
    };
    let index = {
        let s = shared.clone();
        move || {
            let s = s.clone();
            async move {
                (
                    [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    s.0.index(),
                )
            }
        }
    };
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/", get(index))
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                "not found: /metrics, /healthz or /\n",
            )
                .into_response()
        })
}
