// SPDX-License-Identifier: Apache-2.0
// Units: accepted and rejected spellings, and the formatters.
#include <doctest/doctest.h>

#include "linksim/units.hpp"

using doctest::Approx;
using linksim::kGiB;

TEST_SUITE("units") {

TEST_CASE("bandwidth: bytes and bits with explicit units") {
  // GB = 1e9 bytes; Gb = 1e9 bits = 1e9/8 bytes (docs/units.md).
  CHECK(*linksim::parse_bandwidth_Bps("450 GB/s") == Approx(450e9));
  CHECK(*linksim::parse_bandwidth_Bps("25GB/s") == Approx(25e9));
  CHECK(*linksim::parse_bandwidth_Bps("  50 GB/s  ") == Approx(50e9));
  CHECK(*linksim::parse_bandwidth_Bps("400 Gb/s") == Approx(50e9));
  CHECK(*linksim::parse_bandwidth_Bps("400 Gbps") == Approx(50e9));
  // 450 Gb/s = 450e9 / 8 = 56.25e9 bytes/s.
  CHECK(*linksim::parse_bandwidth_Bps("450 Gbps") == Approx(56.25e9));
  CHECK(*linksim::parse_bandwidth_Bps("12.5 MB/s") == Approx(12.5e6));
  CHECK(*linksim::parse_bandwidth_Bps("3.2 TB/s") == Approx(3.2e12));
  CHECK(*linksim::parse_bandwidth_Bps("800 Mb/s") == Approx(1e8));
  CHECK(*linksim::parse_bandwidth_Bps("1 GiB/s") == Approx(kGiB));
}

TEST_CASE("bandwidth: bare numbers, unknown units and non-positive values are rejected") {
  CHECK_FALSE(linksim::parse_bandwidth_Bps("450"));
  CHECK_FALSE(linksim::parse_bandwidth_Bps("450 GBs"));
  CHECK_FALSE(linksim::parse_bandwidth_Bps("450 gb/s"));
  CHECK_FALSE(linksim::parse_bandwidth_Bps("450 GB"));
  CHECK_FALSE(linksim::parse_bandwidth_Bps("-450 GB/s"));
  CHECK_FALSE(linksim::parse_bandwidth_Bps("0 GB/s"));
  CHECK_FALSE(linksim::parse_bandwidth_Bps("inf GB/s"));
  CHECK_FALSE(linksim::parse_bandwidth_Bps("GB/s"));
  CHECK_FALSE(linksim::parse_bandwidth_Bps(""));
  CHECK_FALSE(linksim::parse_bandwidth_Bps("450 GB / s"));
}

TEST_CASE("duration: s, ms, us, micro sign and ns") {
  CHECK(*linksim::parse_duration_s("1.2 us") == Approx(1.2e-6));
  CHECK(*linksim::parse_duration_s("150 ns") == Approx(150e-9));
  CHECK(*linksim::parse_duration_s("0.5 ms") == Approx(0.5e-3));
  CHECK(*linksim::parse_duration_s("2 s") == Approx(2.0));
  CHECK(*linksim::parse_duration_s("1.2 \u00b5s") == Approx(1.2e-6));
  CHECK(*linksim::parse_duration_s("1.2 \u03bcs") == Approx(1.2e-6));
  CHECK(*linksim::parse_duration_s("0 us") == 0.0);
  CHECK_FALSE(linksim::parse_duration_s("1.2"));
  CHECK_FALSE(linksim::parse_duration_s("-1 us"));
  CHECK_FALSE(linksim::parse_duration_s("1.2 sec"));
  CHECK_FALSE(linksim::parse_duration_s("1.2 US"));
}

TEST_CASE("size: bare bytes, nccl-tests K/M/G/T suffixes, decimal and binary units") {
  CHECK(*linksim::parse_size_bytes("1073741824") == 1073741824.0);
  CHECK(*linksim::parse_size_bytes("8") == 8.0);
  CHECK(*linksim::parse_size_bytes("64K") == 65536.0);          // 64 * 1024
  CHECK(*linksim::parse_size_bytes("1M") == 1048576.0);          // 1024^2
  CHECK(*linksim::parse_size_bytes("8G") == 8.0 * kGiB);
  CHECK(*linksim::parse_size_bytes("1 GiB") == kGiB);
  CHECK(*linksim::parse_size_bytes("512 MB") == 512e6);
  CHECK(*linksim::parse_size_bytes("4KiB") == 4096.0);
  CHECK(*linksim::parse_size_bytes("80 GB") == 80e9);
  CHECK(*linksim::parse_size_bytes("0") == 0.0);
  CHECK_FALSE(linksim::parse_size_bytes("-1"));
  CHECK_FALSE(linksim::parse_size_bytes("1.5"));                // a fraction of a byte
  CHECK_FALSE(linksim::parse_size_bytes("0.3K"));               // 307.2 bytes
  CHECK_FALSE(linksim::parse_size_bytes("1 XB"));
  CHECK_FALSE(linksim::parse_size_bytes("1 gb"));
  CHECK_FALSE(linksim::parse_size_bytes(""));
}

TEST_CASE("flops: TFLOP/s and TFLOPS spellings") {
  CHECK(*linksim::parse_flops("989.4 TFLOP/s") == Approx(989.4e12));
  CHECK(*linksim::parse_flops("989.4 TFLOPS") == Approx(989.4e12));
  CHECK(*linksim::parse_flops("1.98 PFLOP/s") == Approx(1.98e15));
  CHECK(*linksim::parse_flops("500 GFLOP/s") == Approx(500e9));
  CHECK_FALSE(linksim::parse_flops("989.4"));
  CHECK_FALSE(linksim::parse_flops("989.4 TB/s"));
  CHECK_FALSE(linksim::parse_flops("0 TFLOP/s"));
}

TEST_CASE("format: bandwidth, size and duration") {
  CHECK(linksim::format_bandwidth(450e9) == "450 GB/s");
  CHECK(linksim::format_bandwidth(12.5e9) == "12.5 GB/s");
  CHECK(linksim::format_bandwidth(14.0625e9) == "14.06 GB/s");
  CHECK(linksim::format_bandwidth(8e8) == "800 MB/s");
  CHECK(linksim::format_size(8) == "8 B");
  CHECK(linksim::format_size(1000) == "1000 B");
  CHECK(linksim::format_size(65536) == "64 KiB");
  CHECK(linksim::format_size(kGiB) == "1 GiB");
  CHECK(linksim::format_size(1.5 * kGiB) == "1.5 GiB");
  CHECK(linksim::format_duration(1.2e-6) == "1.20 us");
  CHECK(linksim::format_duration(3.4e-3) == "3.40 ms");
  CHECK(linksim::format_duration(150e-9) == "150 ns");
  CHECK(linksim::format_duration(2.1) == "2.10 s");
  CHECK(linksim::format_duration(0) == "0 s");
  CHECK(linksim::format_duration(25.5e-6) == "25.5 us");
}

}  // TEST_SUITE
