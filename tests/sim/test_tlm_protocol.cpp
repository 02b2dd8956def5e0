// The one TLM-2.0 AT layer (sim/tlm_at.h) and its base-protocol checker: the checker catches
// each rule broken by a hand-written initiator or target, and every initiator/target pair
// Strata builds (trace player -> simple memory, trace player -> DRAM, DMA -> NoC -> DRAM)
// passes it on the shipped examples with results identical to a run without it.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <nlohmann/json.hpp>

#include "accelerators/builtin_kinds.h"
#include "sim/app/runner.h"
#include "sim/registry.h"
#include "sim/tlm_protocol_checker.h"
#include "test_util.h"

using strata::TlmProtocolChecker;

namespace {

// A target that accepts BEGIN_REQ on the backward path later (TLM_ACCEPTED) and answers with
// whatever the test scripts.
struct ScriptedTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<ScriptedTarget> socket{"socket"};
  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&)> fw;
  explicit ScriptedTarget(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    socket.register_nb_transport_fw(this, &ScriptedTarget::nb_transport_fw);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return fw(gp, ph, d);
  }
};

struct ScriptedInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<ScriptedInitiator> socket{"socket"};
  std::function<void(ScriptedInitiator&)> script;
  explicit ScriptedInitiator(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    socket.register_nb_transport_bw(this, &ScriptedInitiator::nb_transport_bw);
    SC_HAS_PROCESS(ScriptedInitiator);
    SC_THREAD(run);
  }
  void run() { script(*this); }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
    return tlm::TLM_COMPLETED;
  }
  tlm::tlm_sync_enum send(tlm::tlm_generic_payload& gp, tlm::tlm_phase phase) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    return socket->nb_transport_fw(gp, phase, delay);
  }
};

// Runs the pair through a checker; returns the first violation's message ("" if none).
std::string check(std::function<void(ScriptedInitiator&)> script,
                  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&)> fw) {
  ScriptedInitiator initiator("initiator");
  TlmProtocolChecker checker("checker");
  ScriptedTarget target("target");
  initiator.script = std::move(script);
  target.fw = std::move(fw);
  initiator.socket.bind(checker.target_socket());
  checker.initiator_socket().bind(target.socket);
  try {
    sc_core::sc_start();
  } catch (const sc_core::sc_report& r) {
    return r.get_msg();
  }
  return "";
}

tlm::tlm_sync_enum accept_later(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) {
  return tlm::TLM_ACCEPTED;
}

}  // namespace

TEST(TlmProtocolChecker, CatchesASecondRequestBeforeEndReq) {
  const std::string msg = check(
      [](ScriptedInitiator& i) {
        tlm::tlm_generic_payload a, b;
        i.send(a, tlm::BEGIN_REQ);
        i.send(b, tlm::BEGIN_REQ);
      },
      accept_later);
  EXPECT_CONTAINS(msg, "request exclusion rule");
}

TEST(TlmProtocolChecker, CatchesAPayloadSentTwice) {
  const std::string msg = check(
      [](ScriptedInitiator& i) {
        tlm::tlm_generic_payload a;
        a.set_response_status(tlm::TLM_OK_RESPONSE);
        i.send(a, tlm::BEGIN_REQ);  // answered END_REQ at once
        i.send(a, tlm::BEGIN_REQ);
      },
      [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
        ph = tlm::END_REQ;
        return tlm::TLM_UPDATED;
      });
  EXPECT_CONTAINS(msg, "already in flight");
}

TEST(TlmProtocolChecker, CatchesEndRespBeforeBeginResp) {
  const std::string msg = check(
      [](ScriptedInitiator& i) {
        tlm::tlm_generic_payload a;
        i.send(a, tlm::BEGIN_REQ);
        i.send(a, tlm::END_RESP);
      },
      accept_later);
  EXPECT_CONTAINS(msg, "END_RESP before BEGIN_RESP");
}

TEST(TlmProtocolChecker, CatchesACompletionWithoutAResponseStatus) {
  const std::string msg = check(
      [](ScriptedInitiator& i) {
        tlm::tlm_generic_payload a;
        i.send(a, tlm::BEGIN_REQ);
      },
      [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) { return tlm::TLM_COMPLETED; });
  EXPECT_CONTAINS(msg, "TLM_INCOMPLETE_RESPONSE");
}

TEST(TlmProtocolChecker, CatchesAnEndReqAnnotatedBeforeItsRequest) {
  const std::string msg = check(
      [](ScriptedInitiator& i) {
        tlm::tlm_generic_payload a;
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        sc_core::sc_time delay(10, sc_core::SC_NS);  // the request starts at 10 ns
        i.socket->nb_transport_fw(a, phase, delay);
      },
      [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time& d) {
        ph = tlm::END_REQ;
        d = sc_core::SC_ZERO_TIME;  // ... and ends at 0 ns
        return tlm::TLM_UPDATED;
      });
  EXPECT_CONTAINS(msg, "before the transaction's previous phase");
}

TEST(TlmProtocolChecker, CatchesASecondResponseBeforeEndResp) {
  const std::string msg = check(
      [](ScriptedInitiator& i) {
        tlm::tlm_generic_payload a, b;
        a.set_response_status(tlm::TLM_OK_RESPONSE);
        b.set_response_status(tlm::TLM_OK_RESPONSE);
        i.send(a, tlm::BEGIN_REQ);
        i.send(b, tlm::BEGIN_REQ);
      },
      [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
        ph = tlm::BEGIN_RESP;  // END_REQ implied
        return tlm::TLM_UPDATED;
      });
  // Each BEGIN_RESP left unfinished blocks the next one: the initiator never sends END_RESP,
  // so the second request's BEGIN_RESP breaks the response exclusion rule.
  EXPECT_CONTAINS(msg, "response exclusion rule");
}

TEST(TlmProtocolChecker, PassesAFourPhaseExchange) {
  const std::uint64_t before = TlmProtocolChecker::checked_total();
  const std::string msg = check(
      [](ScriptedInitiator& i) {
        tlm::tlm_generic_payload a, b;
        for (tlm::tlm_generic_payload* gp : {&a, &b}) {
          gp->set_response_status(tlm::TLM_OK_RESPONSE);
          i.send(*gp, tlm::BEGIN_REQ);  // END_REQ on the return path
          sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));
          i.send(*gp, tlm::END_RESP);  // after the target's BEGIN_RESP (below)
        }
      },
      [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
        if (ph == tlm::BEGIN_REQ) ph = tlm::BEGIN_RESP;  // END_REQ implied, response at once
        return ph == tlm::END_RESP ? tlm::TLM_COMPLETED : tlm::TLM_UPDATED;
      });
  EXPECT_EQ(msg, "");
  EXPECT_EQ(TlmProtocolChecker::checked_total() - before, 2u);
}

namespace {

// Every pair in `experiment` passes the checker, which saw `min_transactions` or more, and the
// results are those of a run without it (in its own process: SystemC elaborates once per process).
void expect_clean(const std::string& experiment, const std::vector<std::string>& overrides,
                  std::uint64_t min_transactions) {
  strata::testing::TempDir d;
  std::string args = "run -q " + strata::testing::source_path(experiment) + " -o " + d.file("plain");
  for (const std::string& o : overrides) args += " --set " + o;
  ASSERT_EQ(strata::testing::run_strata(args).code, 0);

  strata::Registry registry;
  strata::register_builtin_kinds(registry);
  std::vector<std::string> checked = overrides;
  checked.push_back("sim.check_protocol=true");
  const auto resolved = strata::resolve_experiment(strata::testing::source_path(experiment), checked, registry);
  strata::RunOptions options;
  options.output_dir = d.file("checked");
  const std::uint64_t before = TlmProtocolChecker::checked_total();
  strata::run_experiment(resolved, registry, options);
  EXPECT_GE(TlmProtocolChecker::checked_total() - before, min_transactions);
  EXPECT_EQ(strata::testing::read_file(d.file("plain/stats.json")),
            strata::testing::read_file(d.file("checked/stats.json")))
      << experiment << ": the checker changed the results";
}

}  // namespace

TEST(TlmProtocol, TracePlayerToSimpleMemory) { expect_clean("configs/experiments/quickstart.yaml", {}, 4096); }

TEST(TlmProtocol, TracePlayerToDram) {
  expect_clean("configs/experiments/dram-hbm3-stream.yaml", {"workload.requests=20000"}, 20000);
}

TEST(TlmProtocol, DmaToNocToDram) {
  // Two hops per request: DMA -> NoC and NoC -> memory.
  expect_clean("configs/experiments/npu-gpt2-decode-edge.yaml", {}, 100000);
}
