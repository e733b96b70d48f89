# SPDX-License-Identifier: GPL-2.0-or-later
# Integration tests of PCP's clients over our agent and library:
# tests/integration/mmv_derived.sh (derived metrics and fetchgroups over
# acme-like counters from our MMV agent in a private pmcd).
# mmv_stepper writes on our libpcp_mmv (our headers, our .so by rpath);
# mmv_fg is a PCP client (libpcp only).
MMV_DERIVED_DIR := $(B)/tests/integration
MMV_STEPPER := $(MMV_DERIVED_DIR)/mmv_stepper
MMV_FG := $(MMV_DERIVED_DIR)/mmv_fg

TEST_SCRIPTS += tests/integration/mmv_derived.sh
check: $(MMV_STEPPER) $(MMV_FG)

$(MMV_STEPPER): tests/integration/mmv_stepper.c $(MMV_SO) $(B)/lib/libpcp_mmv.so include/pcp/mmv_stats.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -Wl,-rpath,$(abspath $(B)/lib)

$(MMV_FG): tests/integration/mmv_fg.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -lpcp

# The loss tests' event source (tests/integration/trace_loss.sh), built
# with PCP's headers and library like trace_workload_pcp; run on ours by
# LD_LIBRARY_PATH.
TRACE_FLOOD := $(B)/tests/integration/trace_flood_pcp
TEST_SCRIPTS += tests/integration/trace_loss.sh
check: $(TRACE_FLOOD)

$(TRACE_FLOOD): tests/integration/trace_flood.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -Iinclude -Icommon,$(CFLAGS_ALL)) -o $@ $< -lpcp_trace -ldl

# Packages: make deb, then install, upgrade and purge in a throw-away root.
TEST_SCRIPTS += tests/integration/deb_roundtrip.sh
TEST_SCRIPTS += tests/integration/install.sh

# Debian's pmdammv on a histogram file written by our libpcp_mmv
# (tests/integration/mmv_histogram.sh).
MMV_HIST_WRITER := $(B)/tests/integration/mmv_hist_writer
TEST_SCRIPTS += tests/integration/mmv_histogram.sh
check: $(MMV_HIST_WRITER)

$(MMV_HIST_WRITER): tests/integration/mmv_hist_writer.c $(MMV_SO) $(B)/lib/libpcp_mmv.so include/pcp/mmv_histogram.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -Wl,-rpath,$(abspath $(B)/lib)

# Contention-free counters (tests/integration/mmv_counter.sh): threads
# incrementing through mmv_counter on our libpcp_mmv, read through pmcd by
# our agent and Debian's pmdammv.
MMV_COUNTER_WRITER := $(B)/tests/integration/mmv_counter_writer
TEST_SCRIPTS += tests/integration/mmv_counter.sh
check: $(MMV_COUNTER_WRITER)

$(MMV_COUNTER_WRITER): tests/integration/mmv_counter_writer.c $(MMV_SO) $(B)/lib/libpcp_mmv.so \
		include/pcp/mmv_counter.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -lpthread -Wl,-rpath,$(abspath $(B)/lib)

# The agent's percentiles (tests/integration/mmv_pct.sh) and the off-host
# path, pmproxy and pmlogger (tests/integration/mmv_offhost.sh): histograms
# written on our libpcp_mmv with the registry calls (tests/lib/hist_layout.h).
HIST_WRITER := $(B)/tests/integration/hist_writer
TEST_SCRIPTS += tests/integration/mmv_pct.sh tests/integration/mmv_offhost.sh
check: $(HIST_WRITER)

$(HIST_WRITER): tests/integration/hist_writer.c tests/lib/hist_layout.h \
		$(MMV_SO) $(B)/lib/libpcp_mmv.so include/pcp/mmv_stats.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_mmv -Wl,-rpath,$(abspath $(B)/lib)

# The PDU path and the shared segment give the same numbers
# (tests/integration/trace_shm.sh): a workload on our libpcp_trace.
TRACE_SHM_WORKLOAD := $(B)/tests/integration/trace_shm_workload
TEST_SCRIPTS += tests/integration/trace_shm.sh
check: $(TRACE_SHM_WORKLOAD)

$(TRACE_SHM_WORKLOAD): tests/integration/trace_shm_workload.c $(TRACE_SO) $(B)/lib/libpcp_trace.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -L$(B)/lib -lpcp_trace -lpthread -Wl,-rpath,$(abspath $(B)/lib)

# The SIGBUS guard in the agent's DSO build (tests/integration/guard_dso.sh).
GUARD_DSO := $(B)/tests/integration/guard_dso
TEST_SCRIPTS += tests/integration/guard_dso.sh
check: $(GUARD_DSO)

$(GUARD_DSO): tests/integration/guard_dso.c tests/lib/pmda_dso.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< -lpcp_pmda -lpcp -ldl -lpthread

# The C guide's programs (demos/quickstart, built by make all) run and
# read back with pminfo, pmval and pmrep through a private pmcd with both
# our agents (tests/integration/quickstart.sh).
TEST_SCRIPTS += tests/integration/quickstart.sh
check: $(QUICKSTART)

# Both agents' command lines and exit codes (common/pmda_options.h).
TEST_SCRIPTS += tests/integration/agent_options.sh

# Prometheus reads both agents' cumulative buckets through pmproxy and
# agrees with their own percentiles (tests/integration/prometheus.sh).
TEST_SCRIPTS += tests/integration/prometheus.sh
check: $(HIST_WRITER)

# The fleet path (tests/integration/fleet.sh): two private pmcds with our
# agents standing in for two hosts, a pmlogger each, Debian's pmproxy
# discovering their archives into a private Valkey (or Redis), queried
# with pmseries and pmproxy's /series REST API.
TEST_SCRIPTS += tests/integration/fleet.sh
check: $(HIST_WRITER)

# The OTLP/HTTP receiver with the stock OpenTelemetry SDK for Node.js
# (installed by the test with npm ci into build/npm) and curl.
TEST_SCRIPTS += tests/integration/otlp.sh

# Issue 35: bursts of the stock SDK's exporters (10 x 4, 40 x 1) lose no
# span, the receiver's counters agree with what the SDKs saw, and the old
# admission policy (-Q 16 -R 1) is seen to lose spans.
TEST_SCRIPTS += tests/integration/otlp_burst.sh

# The receiver under hostile clients, the agent built with ASan and UBSan
# ($(PMDA_TRACE_SAN), which make check builds), pmcd answering throughout.
TEST_SCRIPTS += tests/integration/otlp_hostile.sh

# The OTLP/gRPC receiver with the stock Node gRPC exporter, and its
# refusals, floods and resets from tests/integration/otlp/grpc_cases.js.
TEST_SCRIPTS += tests/integration/otlp_grpc.sh

# OpenTelemetry metrics (/v1/metrics, MetricsService/Export) served below
# trace.otel: the stock Node metrics SDK in each protocol and temporality,
# and the NodeSDK configured by its environment alone, read back with
# pminfo through a private pmcd (tests/integration/otlp_metrics.py compares).
TEST_SCRIPTS += tests/integration/otlp_metrics.sh

# PCP 7's pcp2opentelemetry pushing PCP metrics into our /v1/metrics, and
# its pmdaopentelemetry given the same OTLP JSON as ours, side by side
# (Debian's, in the sid root of make check-matrix; skipped on PCP 6).
TEST_SCRIPTS += tests/integration/pcp2otel.sh

# Browsers: the stock OpenTelemetry web SDK bundled with esbuild, loaded
# by Debian's headless Chromium from another origin, against the
# receiver's CORS (-C) and without it (skipped where chromium is absent).
TEST_SCRIPTS += tests/integration/otlp_browser.sh

# "localhost" that resolves to ::1 alone (a private /etc/hosts in a mount
# namespace; root): the Node SDK's exporter against the receiver on both
# loopbacks (-O PORT) and on 127.0.0.1 alone.
TEST_SCRIPTS += tests/integration/otlp_ipv6.sh

# Issue 40: the OTLP receiver off the loopback, in a private network
# namespace with three addresses (root): listeners off the loopback need
# a protection or the word insecure; the access list (-A) and the bearer
# token (-a) against the stock Node SDK's exporters and curl, every
# refusal counted; a flood from a refused host while pmcd fetches.
TEST_SCRIPTS += tests/integration/otlp_access.sh
TEST_SCRIPTS += tests/integration/otlp_tls.sh
