//! Logging: `tracing` to stderr, as text or JSON. Log lines carry route templates and opaque
//! ids, never identifiers, names or addresses.
//!
//! Traces: every request runs in a server span named for its route template, a child of the
//! caller's W3C `traceparent` when one came (the propagator is W3C Trace Context), and every
//! log line of the request carries its trace id. When `OTEL_EXPORTER_OTLP_ENDPOINT` is set
//! the spans (the request's, and the client spans of its upstream calls and of webhook
//! deliveries) go out over OTLP (HTTP, protobuf), configured by the standard `OTEL_*`
//! variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`,
//! `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_SCHEDULE_DELAY`, ...). Without it no
//! exporter is built and nothing is recorded (a sampler that keeps nothing of its own), but
//! the trace context still flows: ids for the logs, and the caller's context (with its
//! sampling decision) on to the registers and receivers.

use crate::config::{Config, LogFormat};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// The variable whose presence turns trace export on.
pub const OTLP_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// Keeps the trace exporter for the process's life; dropping it sends the spans still
/// batched.
#[must_use = "dropping the guard stops trace export"]
pub struct Telemetry {
    traces: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Whether spans go out over OTLP.
    pub fn exporting(&self) -> bool {
        self.traces.is_some()
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.traces.take() {
            let _ = provider.shutdown();
        }
    }
}

/// Installs the process's subscriber: the log on stderr and, when configured, OTLP traces.
/// A failure to build the exporter is logged and the service runs without it.
pub fn init(config: &Config) -> Telemetry {
    let filter = EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info"));
    let log: Box<dyn Layer<Registry> + Send + Sync> = match config.log_format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .boxed(),
    };
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    let (traces, failed) = match std::env::var_os(OTLP_ENDPOINT).filter(|v| !v.is_empty()) {
        None => (None, None),
        Some(_) => match otlp_provider() {
            Ok(provider) => (Some(provider), None),
            Err(e) => (None, Some(e)),
        },
    };
    // Without an exporter: ids and context only, nothing recorded unless a caller's sampled
    // context asks (then dropped at the end, no exporter taking it).
    let local = SdkTracerProvider::builder()
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::AlwaysOff)))
        .build();
    let tracer = traces.as_ref().unwrap_or(&local).tracer("idreg");
    let otel = tracing_opentelemetry::layer().with_tracer(tracer).boxed();
    let _ = tracing_subscriber::registry()
        .with(log)
        .with(otel)
        .with(filter)
        .try_init();
    if let Some(e) = failed {
        tracing::warn!(error = %e, "trace export over OTLP could not be set up; running without it");
    }
    Telemetry { traces }
}

fn otlp_provider() -> Result<SdkTracerProvider, opentelemetry_otlp::ExporterBuildError> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()?;
    let mut resource = opentelemetry_sdk::Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name("idreg");
    }
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build())
}
