//! The reference system's 24 nodes as components, registered as users register theirs
//! (`reference_system::FrontLidarDriver` and the rest): `tacto launch` places them into
//! processes through the component registry, so what the bench measures across processes is
//! the path a user's own nodes take.
//!
//! A node reads its work per run from its `crunch` parameter; the KPIs of the command nodes
//! placed in one process are recorded in one table per context, which the process
//! reads when it reports.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, OnceLock};

use tacto::{Context, Node};
use tacto_component::{BuildError, Placement, Style as Execution, component};

use super::kpi::Kpis;
use super::nodes::{self, Builder};
use super::spec::Spec;
use crate::topology::Topology;

/// The prefix of the components' names: `reference_system::` and the node's name in the spec.
pub const PREFIX: &str = "reference_system::";

/// The parameter each node reads its work per run from (the bench's `--crunch` limit).
pub const CRUNCH_PARAMETER: &str = "crunch";

/// The work per run a node does when its `crunch` parameter is not given.
const DEFAULT_CRUNCH: i64 = 4096;

component!("reference_system::FrontLidarDriver", build);
component!("reference_system::RearLidarDriver", build);
component!("reference_system::PointCloudMap", build);
component!("reference_system::Visualizer", build);
component!("reference_system::Lanelet2Map", build);
component!("reference_system::EuclideanClusterSettings", build);
component!("reference_system::PointsTransformerFront", build);
component!("reference_system::PointsTransformerRear", build);
component!("reference_system::VoxelGridDownsampler", build);
component!("reference_system::PointCloudMapLoader", build);
component!("reference_system::RayGroundFilter", build);
component!("reference_system::ObjectCollisionEstimator", build);
component!("reference_system::MPCController", build);
component!("reference_system::ParkingPlanner", build);
component!("reference_system::LanePlanner", build);
component!("reference_system::PointCloudFusion", build);
component!("reference_system::NDTLocalizer", build);
component!("reference_system::VehicleInterface", build);
component!("reference_system::Lanelet2GlobalPlanner", build);
component!("reference_system::Lanelet2MapLoader", build);
component!("reference_system::BehaviorPlanner", build);
component!("reference_system::EuclideanClusterDetector", build);
component!("reference_system::VehicleDBWSystem", build);
component!("reference_system::IntersectionOutput", build);

/// The shipped reference system, read once per process.
pub(crate) fn spec() -> Result<&'static Spec, BuildError> {
    static SPEC: OnceLock<Result<Spec, String>> = OnceLock::new();
    let loaded = SPEC.get_or_init(|| match Topology::load("reference-system") {
        Ok(Topology::ReferenceSystem(spec)) => Ok(spec),
        Ok(_) => Err("the shipped reference system is of another kind".into()),
        Err(e) => Err(e.to_string()),
    });
    loaded.as_ref().map_err(|e| e.clone().into())
}

/// The KPI table of the command nodes placed on `ctx`: one per context, so that every node of
/// a process records into the table the process reports from.
pub(crate) fn kpis(ctx: &Context, spec: &Spec) -> Arc<Mutex<Kpis>> {
    let made = ctx.shared(|| Ok::<_, Infallible>(Arc::new(Mutex::new(Kpis::new(spec)))));
    match made {
        Ok(kpis) => kpis,
        Err(never) => match never {},
    }
}

/// Builds the node the component's name names, in the executor's style.
fn build(node: &mut Node, placement: &Placement) -> Result<(), BuildError> {
    let spec = spec()?;
    let name = placement.component().trim_start_matches(PREFIX);
    let node_spec = (spec.nodes.iter().find(|n| n.name == name))
        .ok_or_else(|| format!("the reference system has no node {name:?}"))?;
    let crunch = node
        .parameters()
        .declare(CRUNCH_PARAMETER, DEFAULT_CRUNCH)?;
    let crunch = u64::try_from(crunch)
        .ok()
        .filter(|&c| c <= 65_536)
        .ok_or_else(|| format!("parameter {CRUNCH_PARAMETER}: {crunch}: give 0 to 65536"))?;
    let ctx = node.context().clone();
    let kpis = kpis(&ctx, spec);
    let builder = Builder {
        ctx: &ctx,
        style: match placement.style() {
            Execution::Callbacks => nodes::Style::Callbacks,
            Execution::Polling => nodes::Style::Polling,
        },
        crunch,
        depth: spec.depth(),
        kpis: &kpis,
        parameters: 0,
    };
    builder.build(node, node_spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_of_the_reference_system_is_a_registered_component() {
        let spec = spec().unwrap();
        let registered: Vec<_> = (tacto_component::names().into_iter())
            .filter_map(|n| n.strip_prefix(PREFIX))
            .collect();
        let mut nodes: Vec<_> = spec.nodes.iter().map(|n| n.name.as_str()).collect();
        nodes.sort_unstable();
        assert_eq!(registered, nodes);
    }

    #[test]
    fn a_crunch_out_of_range_is_refused_naming_the_parameter() {
        let ctx = Context::new();
        let lidar = tacto_component::find("reference_system::FrontLidarDriver").unwrap();
        let args = ["--ros-args", "-p", "crunch:=-1"];
        let error = (lidar.instantiate(&ctx, None, None, &args, Execution::Polling))
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "component reference_system::FrontLidarDriver: node /FrontLidarDriver: parameter \
             crunch: -1: give 0 to 65536"
        );
    }
}
