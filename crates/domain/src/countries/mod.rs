//! Countries: the countries the service knows, and which connectors serve each one here.
//!
//! - Values: [`country`] (`Country`, `CountrySet`); [`known`], the countries the service
//!   knows (those whose identifier schemes are installed) and their order.
//! - The registry: [`registry`] (`CountryConnectors`, what one country's connector crate
//!   declares, and `Countries`, built once from configuration and asked by every use case;
//!   it holds the registry ports of `companies` and `persons`, and use cases read it).

pub mod country;
pub mod known;
pub mod registry;
