// SPDX-License-Identifier: Apache-2.0
// Levenberg-Marquardt on ln(time) over the calibration parameters (docs/calibration.md#fit).
// Factors are fitted on their logarithm (a factor of 2 and of 1/2 are equally far from 1);
// the hop latency in microseconds. The Jacobian is by central differences of the model itself.
#include "linksim/calibrate.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

#include "common/check.hpp"

namespace linksim {
namespace {

constexpr int kMaxIterations = 60;
constexpr double kLogFactorStep = 0.01;  // ~1 %
constexpr double kLatencyStep_us = 0.1;

// The fit's coordinate of a parameter value, and back.
double to_coordinate(const CalibrationParameterInfo& info, double value) {
  return info.multiplicative ? std::log(value) : value;
}
double to_value(const CalibrationParameterInfo& info, double coordinate) {
  const double lo = to_coordinate(info, info.min), hi = to_coordinate(info, info.max);
  coordinate = std::clamp(coordinate, lo, hi);
  return info.multiplicative ? std::exp(coordinate) : coordinate;
}
double step_of(const CalibrationParameterInfo& info) {
  return info.multiplicative ? kLogFactorStep : kLatencyStep_us;
}

class Model {
 public:
  Model(const Topology& topology, const std::vector<FitCase>& cases)
      : topology_(topology), cases_(cases) {
    for (const FitCase& c : cases_) {
      for (const NcclTestsRow& row : c.table.rows) {
        if (row.size_bytes > 0 && row.time_us > 0) log_measured_.push_back(std::log(row.time_us * 1e-6));
      }
    }
  }
  size_t rows() const { return log_measured_.size(); }

  /// Predicted times of every row, in case and row order.
  std::vector<double> times(const ModelCalibration& calibration) {
    std::vector<double> out;
    out.reserve(rows());
    for (const FitCase& c : cases_) {
      MeasuredSetup setup = c.setup;
      setup.options.calibration = calibration;
      const CollectiveSweep sweep = predict_measured(topology_, c.ranks, setup, c.table);
      for (const SweepRow& row : sweep.rows) out.push_back(row.result.time_s);
    }
    return out;
  }
  Eigen::VectorXd residuals(const ModelCalibration& calibration) {
    const std::vector<double> t = times(calibration);
    Eigen::VectorXd r(static_cast<Eigen::Index>(t.size()));
    for (size_t i = 0; i < t.size(); ++i) r[static_cast<Eigen::Index>(i)] = std::log(t[i]) - log_measured_[i];
    return r;
  }

 private:
  const Topology& topology_;
  const std::vector<FitCase>& cases_;
  std::vector<double> log_measured_;
};

ModelCalibration at(const std::vector<CalibrationParameter>& free, const Eigen::VectorXd& x) {
  ModelCalibration c;
  for (size_t j = 0; j < free.size(); ++j) {
    const CalibrationParameterInfo& info = parameter_info(free[j]);
    c[free[j]] = to_value(info, x[static_cast<Eigen::Index>(j)]);
  }
  return c;
}

Eigen::MatrixXd jacobian(Model& model, const std::vector<CalibrationParameter>& free,
                         const Eigen::VectorXd& x) {
  Eigen::MatrixXd J(static_cast<Eigen::Index>(model.rows()), static_cast<Eigen::Index>(free.size()));
  for (size_t j = 0; j < free.size(); ++j) {
    const double h = step_of(parameter_info(free[j]));
    Eigen::VectorXd up = x, down = x;
    up[static_cast<Eigen::Index>(j)] += h;
    down[static_cast<Eigen::Index>(j)] -= h;
    J.col(static_cast<Eigen::Index>(j)) = (model.residuals(at(free, up)) - model.residuals(at(free, down))) / (2 * h);
  }
  return J;
}

double rms(const Eigen::VectorXd& r) { return r.size() == 0 ? 0 : std::sqrt(r.squaredNorm() / r.size()); }

}  // namespace

CalibrationFit fit_calibration(const Topology& topology, const std::vector<FitCase>& cases) {
  LINKSIM_CHECK(!cases.empty(), "fit_calibration needs measurements");
  Model model(topology, cases);
  LINKSIM_CHECK(model.rows() > 0, "fit_calibration needs measured rows");
  CalibrationFit fit;

  // Which parameters the rows respond to, at the neutral calibration.
  std::vector<CalibrationParameter> all;
  for (const CalibrationParameterInfo& info : calibration_parameters()) all.push_back(info.id);
  Eigen::VectorXd x0(static_cast<Eigen::Index>(all.size()));
  for (size_t j = 0; j < all.size(); ++j) {
    const CalibrationParameterInfo& info = parameter_info(all[j]);
    x0[static_cast<Eigen::Index>(j)] = to_coordinate(info, info.neutral);
  }
  const Eigen::MatrixXd J0 = jacobian(model, all, x0);
  const double rows = static_cast<double>(model.rows());
  for (size_t j = 0; j < all.size(); ++j) {
    const double response = J0.col(static_cast<Eigen::Index>(j)).norm() / std::sqrt(rows) *
                            step_of(parameter_info(all[j]));
    (response < kMinSensitivity ? fit.undetermined : fit.fitted).push_back(all[j]);
  }

  Eigen::VectorXd x(static_cast<Eigen::Index>(fit.fitted.size()));
  for (size_t j = 0; j < fit.fitted.size(); ++j) {
    const CalibrationParameterInfo& info = parameter_info(fit.fitted[j]);
    x[static_cast<Eigen::Index>(j)] = to_coordinate(info, info.neutral);
  }
  Eigen::VectorXd r = model.residuals(at(fit.fitted, x));
  fit.rms_before = rms(r);
  double cost = r.squaredNorm();
  double lambda = 1e-3;
  for (int iteration = 0; iteration < kMaxIterations && !fit.fitted.empty(); ++iteration) {
    fit.iterations = iteration + 1;
    const Eigen::MatrixXd J = jacobian(model, fit.fitted, x);
    const Eigen::MatrixXd JtJ = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    for (int attempt = 0; attempt < 12 && !improved; ++attempt) {
      Eigen::MatrixXd A = JtJ;
      for (Eigen::Index k = 0; k < A.rows(); ++k) A(k, k) += lambda * std::max(JtJ(k, k), 1e-12);
      Eigen::VectorXd candidate = x - A.ldlt().solve(g);
      // Keep the coordinates inside the parameters' ranges.
      for (size_t j = 0; j < fit.fitted.size(); ++j) {
        const CalibrationParameterInfo& info = parameter_info(fit.fitted[j]);
        auto& c = candidate[static_cast<Eigen::Index>(j)];
        c = std::clamp(c, to_coordinate(info, info.min), to_coordinate(info, info.max));
      }
      const Eigen::VectorXd r_candidate = model.residuals(at(fit.fitted, candidate));
      const double candidate_cost = r_candidate.squaredNorm();
      if (candidate_cost < cost) {
        const double gain = cost - candidate_cost;
        x = candidate;
        r = r_candidate;
        cost = candidate_cost;
        lambda = std::max(lambda / 3, 1e-9);
        improved = true;
        if (gain < 1e-12 * std::max(1.0, cost)) iteration = kMaxIterations;
      } else {
        lambda *= 4;
      }
    }
    if (!improved) break;
  }
  fit.parameters = at(fit.fitted, x);
  fit.rms_after = rms(r);
  for (CalibrationParameter p : fit.fitted) {
    const CalibrationParameterInfo& info = parameter_info(p);
    const double v = fit.parameters[p];
    if (std::abs(v - info.min) <= 1e-9 * std::max(1.0, std::abs(info.min)) ||
        std::abs(v - info.max) <= 1e-9 * std::max(1.0, std::abs(info.max))) {
      fit.at_bound.push_back(p);
    }
  }
  const std::vector<double> before = model.times(ModelCalibration());
  const std::vector<double> after = model.times(fit.parameters);
  size_t i = 0;
  for (size_t t = 0; t < cases.size(); ++t) {
    for (const NcclTestsRow& row : cases[t].table.rows) {
      if (!(row.size_bytes > 0 && row.time_us > 0)) continue;
      fit.rows.push_back({t, row.line, row.size_bytes, row.time_us * 1e-6, before[i], after[i]});
      ++i;
    }
  }
  return fit;
}

}  // namespace linksim
