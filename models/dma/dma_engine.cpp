#include "models/dma/dma_engine.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/kernel.h"

namespace strata {

KindSpec DmaEngine::spec() {
  KindSpec s;
  s.name = "dma";
  s.description = "descriptor-driven DMA between a scratchpad and memory (TLM-2.0 AT initiator)";
  s.with_clock();
  s.add(param::quantity("burst", UnitFamily::Size,
                        "largest request; requests never cross a burst-aligned boundary (a power of two)")
            .def("512 B")
            .range("8 B", "1 MiB"));
  s.add(param::integer("max_outstanding", "requests in flight at once; further requests wait")
            .def("64")
            .range("1", "65536"));
  s.provides(kDmaRole);
  return s;
}

DmaEngine::DmaEngine(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      port_("socket",
            [this](tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
              complete(static_cast<Request&>(gp), sc_core::sc_time_stamp() + delay);
            }),
      burst_(static_cast<std::uint64_t>(params().quantity("burst"))),
      max_outstanding_(static_cast<std::size_t>(params().integer("max_outstanding"))),
      descriptors_(counter("descriptors", "descriptors", "transfers completed")),
      requests_(counter("requests", "requests", "memory requests completed")),
      bytes_read_(counter("bytes_read", "B", "bytes read from memory")),
      bytes_written_(counter("bytes_written", "B", "bytes written to memory")),
      read_latency_(distribution("read_latency", "ns", "read request latency, BEGIN_REQ to BEGIN_RESP")),
      outstanding_level_(time_average("outstanding", "requests", "requests in flight")),
      bandwidth_series_(time_series("bandwidth_over_time", "GB/s", "bytes moved per window", 1e-9)) {
  if ((burst_ & (burst_ - 1)) != 0)
    throw InputError(params().where("burst"), config().path + ".burst",
                     fmt::format("{} B is not a power of two", burst_));
  scratch_.resize(burst_);
  // Its request table: one tag, address and length per outstanding request.
  const UnitCost table = tech().register_file_write(static_cast<int>(max_outstanding_), 96);
  add_area("request_table", table.area_mm2, table.leakage_w);
  track_ = ctx.timeline().track(std::string(this->name()) + " transfers");
  SC_HAS_PROCESS(DmaEngine);
  SC_THREAD(run);
}

void DmaEngine::submit(const DmaDescriptor& d, std::function<void()> done) {
  if (d.bytes() == 0) {
    descriptors_.add();
    done();
    return;
  }
  auto t = std::make_shared<Transfer>();
  t->d = d;
  t->id = next_id_++;
  context().timeline().async_begin(track_, d.write ? "store" : "load", t->id, sc_core::sc_time_stamp());
  if (t->d.stride == 0) t->d.stride = t->d.row_bytes;
  t->done = std::move(done);
  queue_.push_back(std::move(t));
  work_event_.notify(sc_core::SC_ZERO_TIME);
}

void DmaEngine::free(tlm::tlm_generic_payload* gp) {
  static_cast<Request*>(gp)->transfer.reset();
  pool_.recycle(gp);
}

void DmaEngine::run() {
  for (;;) {
    while (queue_.empty()) wait(work_event_);
    std::shared_ptr<Transfer> t = queue_.front();
    while (!t->issued_all) {
      while (outstanding_ >= max_outstanding_ || port_.request_open()) wait(port_.progress());
      // At most one request per cycle, on our clock's edges.
      sc_core::sc_time edge = clock().next_edge(sc_core::sc_time_stamp());
      if (issued_any_) edge = std::max(edge, clock().edge_after(last_issue_));
      if (edge > sc_core::sc_time_stamp()) wait(edge - sc_core::sc_time_stamp());
      issued_any_ = true;
      last_issue_ = sc_core::sc_time_stamp();

      const std::uint64_t address = t->d.address + t->row * t->d.stride + t->offset;
      const std::uint64_t to_boundary = burst_ - (address & (burst_ - 1));
      const auto bytes = static_cast<unsigned>(std::min(to_boundary, t->d.row_bytes - t->offset));
      t->offset += bytes;
      if (t->offset == t->d.row_bytes) {
        t->offset = 0;
        t->issued_all = ++t->row == t->d.rows;
      }
      ++t->in_flight;

      Request* r = pool_.allocate();
      r->acquire();
      r->transfer = t;
      r->issued = last_issue_;
      r->set_command(t->d.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      r->set_address(address);
      r->set_data_ptr(scratch_.data());
      r->set_data_length(bytes);
      r->set_streaming_width(bytes);
      r->set_byte_enable_ptr(nullptr);
      r->set_dmi_allowed(false);
      r->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      ++outstanding_;
      outstanding_level_.set(to_seconds(last_issue_), static_cast<double>(outstanding_));
      port_.begin_request(*r);
    }
    queue_.pop_front();
  }
}

void DmaEngine::complete(Request& r, const sc_core::sc_time& at) {
  if (r.get_response_status() != tlm::TLM_OK_RESPONSE && r.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    context().fail(InputError(SourceLoc{name()}, "", "the memory answered a DMA request with an error: " +
                                                         r.get_response_string()));
  const std::uint64_t bytes = r.get_data_length();
  if (r.is_write()) {
    bytes_written_.add(bytes);
  } else {
    bytes_read_.add(bytes);
    read_latency_.sample(to_seconds(at - r.issued) * 1e9);
  }
  requests_.add();
  bandwidth_series_.add(to_seconds(at), static_cast<double>(bytes));
  --outstanding_;
  outstanding_level_.set(to_seconds(at), static_cast<double>(outstanding_));
  std::shared_ptr<Transfer> t = r.transfer;
  r.release();
  if (--t->in_flight == 0 && t->issued_all) {
    descriptors_.add();
    context().timeline().async_end(track_, t->d.write ? "store" : "load", t->id, at);
    t->done();
  }
}

std::uint64_t aligned_blocks(const DmaDescriptor& d, std::uint64_t block) {
  if (d.bytes() == 0 || block == 0) return 0;
  // One row's windows.
  const auto row_blocks = [block, &d](std::uint64_t address) {
    return (address + d.row_bytes - 1) / block - address / block + 1;
  };
  const std::uint64_t stride = d.stride == 0 ? d.row_bytes : d.stride;
  // Rows that start at the same offset in their window take the same number.
  if (d.rows == 1 || stride % block == 0) return d.rows * row_blocks(d.address);
  std::uint64_t blocks = 0;
  for (std::uint64_t r = 0; r < d.rows; ++r) blocks += row_blocks(d.address + r * stride);
  return blocks;
}

std::uint64_t DmaEngine::requests_of(const DmaDescriptor& d) const { return aligned_blocks(d, burst_); }

void DmaEngine::account_analytic(const DmaDescriptor& d, double start_s, double end_s) {
  descriptors_.add();
  if (d.bytes() == 0) return;
  requests_.add(requests_of(d));
  (d.write ? bytes_written_ : bytes_read_).add(d.bytes());
  bandwidth_series_.add_spread(start_s, end_s, static_cast<double>(d.bytes()));
}

void DmaEngine::finalize(const sc_core::sc_time& end) {
  outstanding_level_.finish(end.to_seconds());
  bandwidth_series_.finish(end.to_seconds());
}

}  // namespace strata
