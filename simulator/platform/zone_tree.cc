// Implements zone_tree.h.
#include "simulator/platform/zone_tree.h"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

namespace simtrain::platform {

namespace sg4 = simgrid::s4u;

sg4::NetZone* ZoneTree::create_zone(const std::string& name) {
  sg4::NetZone* zone = sg4::create_star_zone(name);
  adopt_models(zone);
  return zone;
}

void ZoneTree::adopt_models(sg4::NetZone* zone) const {
  auto* impl = zone->get_impl();
  const auto* models = root_->get_impl();
  impl->set_network_model(models->get_network_model());
  impl->set_cpu_pm_model(models->get_cpu_pm_model());
  impl->set_cpu_vm_model(models->get_cpu_vm_model());
  impl->set_disk_model(models->get_disk_model());
  impl->set_host_model(models->get_host_model());
}

sg4::Link* ZoneTree::duplex_link(sg4::NetZone* zone, const std::string& name, double bandwidth_Bps,
                                 double latency_s) {
  sg4::Link* link = zone->create_split_duplex_link(name, bandwidth_Bps);
  link->set_latency(latency_s)->seal();
  return link;
}

void ZoneTree::connect(sg4::NetZone* parent, sg4::NetZone* child, NetPoint* gateway, const Route& route) {
  pending_.push_back({parent, child, gateway, route});
}

void ZoneTree::connect(sg4::NetZone* parent, sg4::NetZone* child, NetPoint* gateway, const std::string& name,
                       double bandwidth_Bps, double latency_s) {
  Route route;
  if (!name.empty())
    route.emplace_back(duplex_link(parent, name, bandwidth_Bps, latency_s), sg4::LinkInRoute::Direction::UP);
  connect(parent, child, gateway, route);
}

ZoneTree::NetPoint* ZoneTree::create_switch(sg4::NetZone* owner, const std::string& name) {
  sg4::NetZone* zone = create_zone(name + "-zone");
  NetPoint* router = zone->create_router(name);
  connect(owner, zone, router, Route{});
  return router;
}

void ZoneTree::attach(const Connection& c) {
  c.child->set_parent(c.parent);
  c.parent->add_route(c.child->get_netpoint(), nullptr, c.gateway, nullptr, c.route, true);
  c.child->seal();
}

void ZoneTree::attach_pending() {
  std::vector<Connection> to_root;
  for (const Connection& c : pending_) {
    if (c.parent == root_)
      to_root.push_back(c);
    else
      attach(c);
  }
  pending_ = std::move(to_root);
}

void ZoneTree::finish() {
  attach_pending();
  for (const Connection& c : pending_) attach(c);
  pending_.clear();
  root_->seal();
}

}  // namespace simtrain::platform
