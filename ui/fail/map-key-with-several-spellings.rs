// The user keyed maps by types that read several spellings as one value:
// "::1" and "0:0:0:0:0:0:0:1" are one IpAddr, so one key the model sent
// would silently replace another.
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use toolgate::{tool, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
pub enum Region {
    #[serde(alias = "eu-west")]
    Europe,
    Asia,
}

/// Set quotas.
#[tool(effect = write)]
fn set_quotas(
    per_host: HashMap<IpAddr, u32>,
    per_region: Vec<BTreeMap<Region, u32>>,
    per_name: HashMap<String, u32>,
    per_day: BTreeMap<u16, u32>,
) -> Result<usize, ToolError> {
    Ok(per_host.len() + per_region.len() + per_name.len() + per_day.len())
}

fn main() {}
