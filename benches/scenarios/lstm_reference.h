#pragma once
// scenarios/lstm's arithmetic and its CPU reference, GPU-free (tested on the CPU): the FLOP count
// of a pass, and one LSTM layer forward and back through time in double precision, in cuDNN's
// formulation (gates i, f, g, o; an input and a recurrent bias per gate).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace gpubench::scenarios {

enum class LstmPass { kForward, kForwardBackward };

struct LstmShape {
  int seq = 1, batch = 1, input = 1, hidden = 1;
};

// The gate GEMMs, which are the work: per step and batch row, x (input) and h (hidden) against
// the four gates' weights, 2 x 4H x (I + H) FLOP. The backward pass does that twice more: the
// gradients of x and h (backward data) and of the weights (backward weights). The elementwise
// gate arithmetic (about 30 FLOP per hidden unit) is left out, as frameworks leave it out.
inline double lstm_flops(const LstmShape& s, LstmPass pass) {
  const double forward = 2.0 * 4 * s.hidden * (s.input + s.hidden) * s.batch * static_cast<double>(s.seq);
  return pass == LstmPass::kForward ? forward : 3 * forward;
}

// One layer's parameters, gate g in cuDNN's order (0 input, 1 forget, 2 cell, 3 output):
// w[g] is H x I and r[g] is H x H, row-major (a row per hidden unit); bw[g] and br[g] are H.
struct LstmWeights {
  std::vector<double> w[4], r[4], bw[4], br[4];
  static LstmWeights zeros(const LstmShape& s) {
    LstmWeights z;
    for (int g = 0; g < 4; ++g) {
      z.w[g].assign(static_cast<std::size_t>(s.hidden) * s.input, 0);
      z.r[g].assign(static_cast<std::size_t>(s.hidden) * s.hidden, 0);
      z.bw[g].assign(s.hidden, 0);
      z.br[g].assign(s.hidden, 0);
    }
    return z;
  }
};

// The forward pass: y is T x B x H (sequence-major); h and c hold every step's state,
// (T + 1) x B x H with the initial state first; act every step's gate activations, T x B x 4 x H.
struct LstmForward {
  std::vector<double> y, h, c, act;
};

struct LstmGradients {
  std::vector<double> dx, dhx, dcx;  // T x B x I, B x H, B x H
  LstmWeights dweights;
};

inline double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// x is T x B x I; h0 and c0 are B x H.
inline LstmForward lstm_forward(const LstmShape& s, const LstmWeights& p, const std::vector<double>& x,
                                const std::vector<double>& h0, const std::vector<double>& c0) {
  const std::size_t B = s.batch, H = s.hidden, I = s.input, T = s.seq;
  LstmForward f{std::vector<double>(T * B * H), h0, c0, std::vector<double>(T * B * 4 * H)};
  f.h.resize((T + 1) * B * H);
  f.c.resize((T + 1) * B * H);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t b = 0; b < B; ++b) {
      const double* xt = &x[(t * B + b) * I];
      const double* ht = &f.h[(t * B + b) * H];
      double* act = &f.act[(t * B + b) * 4 * H];
      for (int g = 0; g < 4; ++g)
        for (std::size_t j = 0; j < H; ++j) {
          double v = p.bw[g][j] + p.br[g][j];
          for (std::size_t i = 0; i < I; ++i) v += p.w[g][j * I + i] * xt[i];
          for (std::size_t k = 0; k < H; ++k) v += p.r[g][j * H + k] * ht[k];
          act[g * H + j] = g == 2 ? std::tanh(v) : sigmoid(v);
        }
      for (std::size_t j = 0; j < H; ++j) {
        const double c = act[H + j] * f.c[(t * B + b) * H + j] + act[j] * act[2 * H + j];
        f.c[((t + 1) * B + b) * H + j] = c;
        f.h[((t + 1) * B + b) * H + j] = f.y[(t * B + b) * H + j] = act[3 * H + j] * std::tanh(c);
      }
    }
  return f;
}

// Back through time from the gradients of y (T x B x H) and of the final state (B x H each).
inline LstmGradients lstm_backward(const LstmShape& s, const LstmWeights& p, const std::vector<double>& x,
                                   const LstmForward& f, const std::vector<double>& dy,
                                   const std::vector<double>& dhy, const std::vector<double>& dcy) {
  const std::size_t B = s.batch, H = s.hidden, I = s.input, T = s.seq;
  LstmGradients d{std::vector<double>(T * B * I), dhy, dcy, LstmWeights::zeros(s)};
  std::vector<double> da(4 * H);
  for (std::size_t t = T; t-- > 0;)
    for (std::size_t b = 0; b < B; ++b) {
      const double* act = &f.act[(t * B + b) * 4 * H];
      double* dh = &d.dhx[b * H];
      double* dc = &d.dcx[b * H];
      for (std::size_t j = 0; j < H; ++j) {
        const double i = act[j], fg = act[H + j], g = act[2 * H + j], o = act[3 * H + j];
        const double tc = std::tanh(f.c[((t + 1) * B + b) * H + j]);
        const double dht = dh[j] + dy[(t * B + b) * H + j];
        const double dct = dc[j] + dht * o * (1 - tc * tc);
        da[j] = dct * g * i * (1 - i);
        da[H + j] = dct * f.c[(t * B + b) * H + j] * fg * (1 - fg);
        da[2 * H + j] = dct * i * (1 - g * g);
        da[3 * H + j] = dht * tc * o * (1 - o);
        dc[j] = dct * fg;
      }
      const double* xt = &x[(t * B + b) * I];
      const double* ht = &f.h[(t * B + b) * H];
      double* dxt = &d.dx[(t * B + b) * I];
      std::vector<double> dh_prev(H, 0);
      for (int g = 0; g < 4; ++g)
        for (std::size_t j = 0; j < H; ++j) {
          const double a = da[g * H + j];
          d.dweights.bw[g][j] += a;
          d.dweights.br[g][j] += a;
          for (std::size_t i = 0; i < I; ++i) {
            dxt[i] += p.w[g][j * I + i] * a;
            d.dweights.w[g][j * I + i] += a * xt[i];
          }
          for (std::size_t k = 0; k < H; ++k) {
            dh_prev[k] += p.r[g][j * H + k] * a;
            d.dweights.r[g][j * H + k] += a * ht[k];
          }
        }
      std::copy(dh_prev.begin(), dh_prev.end(), dh);
    }
  return d;
}

}  // namespace gpubench::scenarios
