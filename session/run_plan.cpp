// Planning a measuring run's group (session/run_plan.h).
#include "session/run_plan.h"

#include <algorithm>

#include "common/csv.h"
#include "model/candidates.h"

namespace arlab::session {

namespace {

// Throws InvalidArgument unless `choice` can serve a member that keeps the problem's algorithm
// (`who`: "--policy trtllm", "an explicit configuration (--config, --policy explicit)").
void require_fixed_algorithm(const KernelChoice& choice, const Problem& p, const std::string& who) {
  if (choice.automatic())
    throw InvalidArgument("--kernel " + choice.name + " lets the model policy choose the kernel; " + who +
                          " takes one kernel body (" + kernel_body_names() + ")");
  const Impl body = choice.bodies.front();
  if (!runs_algorithm(body, p.algo))
    throw InvalidArgument("--kernel " + choice.name + " with --algo " + to_string(p.algo) + ": " +
                          algorithm_limit(body) + ", and " + who +
                          " keeps the problem's algorithm; use --algo " +
                          to_string(algorithms_of(body).front()) + ", --kernel reference or --policy model");
}

// Throws InvalidArgument unless the model policy can search something with `choice` for p: every
// body has a model design, and one of them runs an algorithm the model may pick.
void require_model_candidates(const KernelChoice& choice, const Problem& p) {
  for (Impl body : choice.bodies)
    if (implementation(body).model == ModelDesign::not_modelled)
      throw InvalidArgument("--policy model with --kernel " + choice.name + ": the model does not predict the " +
                            to_string(body) + " implementation (no model design in its table row); use a fixed "
                            "policy with it (trtllm, flashinfer, explicit)");
  for (Impl body : choice.bodies)
    for (Algorithm a : model::model_algorithms(p))
      if (runs_algorithm(body, a)) return;
  throw InvalidArgument("--kernel " + choice.name + ": no kernel body of it runs an algorithm the model may pick for " +
                        std::to_string(p.tokens) + " tokens at N = " + std::to_string(p.nranks));
}

}  // namespace

KernelChoice parse_kernel_choice(const std::string& text) {
  if (text == "auto") return KernelChoice{text, modelled_bodies()};  // what the model can predict
  for (Impl body : kernel_bodies())
    if (text == to_string(body)) return KernelChoice{text, {body}};
  throw InvalidArgument("--kernel '" + cut_for_message(text) + "' is not a kernel (expected " + kernel_body_names() +
                        " or auto)");
}

std::vector<KernelChoice> parse_kernel_choices(const std::vector<std::string>& names) {
  if (names.empty()) throw InvalidArgument("--kernel: at least one of " + kernel_body_names() + " or auto");
  std::vector<KernelChoice> out;
  for (const std::string& name : names) {
    for (const KernelChoice& k : out)
      if (k.name == name) throw InvalidArgument("--kernel lists '" + cut_for_message(name) + "' twice");
    out.push_back(parse_kernel_choice(name));
  }
  return out;
}

bool needs_peers(const std::vector<GroupEntry>& entries) {
  for (const GroupEntry& e : entries) {
    if (e.kind == GroupEntry::Kind::baseline && is_peer(e.baseline)) return true;
    if (e.kind != GroupEntry::Kind::baseline)
      for (Impl body : e.kernel.bodies)
        if (is_peer(body)) return true;
  }
  return false;
}

std::vector<GroupEntry> plan_group(const GroupRequest& r, const Problem& p) {
  if (r.kernels.empty()) throw InvalidArgument("--kernel: at least one of " + kernel_body_names() + " or auto");
  const bool several_kernels = r.kernels.size() > 1;
  std::vector<GroupEntry> out;
  size_t next_shape = 0;
  for (const std::string& text : r.policies) {
    const size_t slash = text.find('/');
    GroupEntry e;
    e.kind = GroupEntry::Kind::policy;
    e.policy = model::parse_policy(text.substr(0, slash));
    std::vector<KernelChoice> choices = r.kernels;
    bool own_kernel = false;
    if (slash != std::string::npos) {
      try {
        choices = {parse_kernel_choice(text.substr(slash + 1))};
      } catch (const InvalidArgument& err) {
        throw InvalidArgument("--policy '" + cut_for_message(text) + "': " + err.what() + " after the '/'");
      }
      own_kernel = true;
    }
    if (e.policy == model::Policy::explicit_config) {
      if (next_shape >= r.shapes.size())
        throw InvalidArgument("--policy explicit needs --tpb (threads per block, 1 to 1024) and --grid");
      e.shape = r.shapes[next_shape++];
    }
    const std::string name = model::to_string(e.policy);
    for (const KernelChoice& k : choices) {
      GroupEntry one = e;
      one.kernel = k;
      one.label = own_kernel || several_kernels ? name + "/" + k.name : name;
      if (e.policy == model::Policy::model) {
        require_model_candidates(k, p);
      } else if (e.policy == model::Policy::flashinfer) {
        // FlashInfer's rule picks the algorithm (it may switch): the body must take either.
        if (k.automatic())
          throw InvalidArgument("--kernel " + k.name + " lets the model policy choose the kernel; --policy flashinfer "
                                "takes one kernel body (" + kernel_body_names() + ")");
      }
      else if (e.policy == model::Policy::explicit_config)
        require_fixed_algorithm(k, p, "an explicit configuration (--config, --policy explicit)");
      else
        require_fixed_algorithm(k, p, "--policy " + name);
      out.push_back(one);
    }
  }
  for (; next_shape < r.shapes.size(); ++next_shape)
    for (const KernelChoice& k : r.kernels) {
      require_fixed_algorithm(k, p, "an explicit configuration (--config, --policy explicit)");
      GroupEntry e;
      e.kind = GroupEntry::Kind::explicit_shape;
      e.label = several_kernels ? "explicit/" + k.name : "explicit";
      e.kernel = k;
      e.shape = r.shapes[next_shape];
      out.push_back(e);
    }
  for (Impl b : r.baselines) {
    if (is_kernel_body(b))
      throw InvalidArgument(std::string("--baseline ") + to_string(b) + ": a kernel body, not a baseline (" +
                            baseline_names() + "); the policies measure the kernel bodies");
    if (std::count(r.baselines.begin(), r.baselines.end(), b) > 1)
      throw InvalidArgument(std::string("--baseline lists '") + to_string(b) + "' twice");
    GroupEntry e;
    e.kind = GroupEntry::Kind::baseline;
    e.label = to_string(b);
    e.baseline = b;
    out.push_back(e);
  }
  if (out.empty()) throw InvalidArgument("--policy: at least one policy, --config or --baseline");
  return out;
}

}  // namespace arlab::session
