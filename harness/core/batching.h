#pragma once
// How many operations one sample batches, so that launch and timer overheads are a small part of
// it: State::measure, transfer's lanes and collectives size their samples by the same rule.
namespace gpubench {

// Operations per sample so that a sample lasts about `target_s`, given one operation takes
// `op_s`: at least 1, at most `max_ops` (nccl-tests' -n); 1 where the time is unknown (zero, NaN).
int batch_size(double op_s, double target_s, int max_ops);

}  // namespace gpubench
