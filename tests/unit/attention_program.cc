#include "tests/unit/attention_program.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace seam::cpu::testing {

std::string AttentionProgram(const Shape& x, Mask mask, int offset, bool return_scores,
                             bool split_heads) {
  const std::string ls = absl::StrCat("f32[", x.b, ",", x.h, ",", x.l, ",", x.s, "]");
  const std::string rows = absl::StrCat("f32[", x.b, ",", x.h, ",", x.l, "]");
  const auto f32 = [&](int a, int c) {
    return absl::StrCat("f32[", x.b, ",", x.h, ",", a, ",", c, "]");
  };
  std::string text = "program @attention {\n";
  const char* names[] = {"q", "k", "v", "g"};
  for (int p = 0; p < 4; ++p) {
    const int rows = p == 1 || p == 2 ? x.s : x.l;
    if (!split_heads) {
      absl::StrAppend(&text, "  %", names[p], " = parameter(", p, ") : ", f32(rows, x.d), "\n");
      continue;
    }
    absl::StrAppend(&text, "  %", names[p], "0 = parameter(", p, ") : f32[", x.b, ",", rows, ",",
                    x.h, ",", x.d, "]\n  %", names[p], " = transpose(%", names[p],
                    "0), permutation={0,2,1,3} : ", f32(rows, x.d), "\n");
  }
  absl::StrAppend(&text, "  %scale = parameter(4) : f32[]\n");
  const std::string pl = absl::StrCat("pred[", x.l, ",", x.s, "]");
  const std::string sl = absl::StrCat("s32[", x.l, ",", x.s, "]");
  if (mask != Mask::kNone) {
    absl::StrAppend(
        &text, "  %i1 = iota(), dimension={0} : s32[", x.l, "]\n",
        "  %ib = broadcast_in_dim(%i1), dims={0} : ", sl, "\n",
        "  %j1 = iota(), dimension={0} : s32[", x.s, "]\n",
        "  %jb = broadcast_in_dim(%j1), dims={1} : ", sl, "\n", "  %off = constant(", offset,
        ") : s32[]\n", "  %offb = broadcast_in_dim(%off), dims={} : ", sl, "\n",
        "  %is = add(%ib, %offb) : ", sl, "\n",
        mask == Mask::kCausal ? "  %keep = ge(%is, %jb) : " : "  %keep = le(%is, %jb) : ", pl,
        "\n  %mask = broadcast_in_dim(%keep), dims={2,3} : ",
        absl::StrReplaceAll(ls, {{"f32", "pred"}}), "\n");
  }
  absl::StrAppend(
      &text,
      "  %s = dot_general(%q, %k), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, "
      "rhs_contracting={3} : ",
      ls, "\n  %scb = broadcast_in_dim(%scale), dims={} : ", ls,
      "\n  %ss = multiply(%s, %scb) : ", ls, "\n");
  if (mask != Mask::kNone) {
    absl::StrAppend(
        &text,
        "  %ninf = constant(-inf) : f32[]\n  %ninfb = broadcast_in_dim(%ninf), dims={} : ", ls,
        "\n  %m = select(%mask, %ss, %ninfb) : ", ls, "\n");
  } else {
    absl::StrAppend(&text, "  %m = add(%ss, %ss) : ", ls, "\n");  // no mask: a plain softmax
  }
  absl::StrAppend(
      &text, "  %mx = reduce_max(%m), axes={3} : ", rows,
      "\n  %mxb = broadcast_in_dim(%mx), dims={0,1,2} : ", ls,
      "\n  %dd = subtract(%m, %mxb) : ", ls, "\n  %e = exp(%dd) : ", ls,
      "\n  %sum = reduce_sum(%e), axes={3} : ", rows,
      "\n  %sumb = broadcast_in_dim(%sum), dims={0,1,2} : ", ls,
      "\n  %p = divide(%e, %sumb) : ", ls,
      "\n  %o = dot_general(%p, %v), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, "
      "rhs_contracting={2} : ",
      f32(x.l, x.d),
      "\n  %dv = dot_general(%p, %g), lhs_batch={0,1}, lhs_contracting={2}, rhs_batch={0,1}, "
      "rhs_contracting={2} : ",
      f32(x.s, x.d),
      "\n  %dp = dot_general(%g, %v), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, "
      "rhs_contracting={3} : ",
      ls, "\n  %t1 = divide(%dp, %sumb) : ", ls, "\n  %t2 = divide(%p, %sumb) : ", ls,
      "\n  %t3 = multiply(%dp, %t2) : ", ls, "\n  %t4 = neg(%t3) : ", ls,
      "\n  %t5 = reduce_sum(%t4), axes={3} : ", rows,
      "\n  %t6 = broadcast_in_dim(%t5), dims={0,1,2} : ", ls, "\n  %t7 = add(%t1, %t6) : ", ls,
      "\n  %t8 = multiply(%t7, %e) : ", ls, "\n");
  if (mask != Mask::kNone) {
    absl::StrAppend(
        &text, "  %zero = constant(0) : f32[]\n  %zb = broadcast_in_dim(%zero), dims={} : ", ls,
        "\n  %t9 = select(%mask, %t8, %zb) : ", ls, "\n");
  } else {
    absl::StrAppend(&text, "  %t9 = add(%t8, %t8) : ", ls, "\n");
  }
  absl::StrAppend(
      &text, "  %ds = multiply(%t9, %scb) : ", ls,
      "\n  %dk = dot_general(%q, %ds), lhs_batch={0,1}, lhs_contracting={2}, rhs_batch={0,1}, "
      "rhs_contracting={2} : ",
      f32(x.d, x.s),
      "\n  %dq = dot_general(%ds, %k), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, "
      "rhs_contracting={2} : ",
      f32(x.l, x.d), "\n");
  if (!split_heads) {
    absl::StrAppend(&text, "  return (%o, %dq, %dk, %dv", return_scores ? ", %s" : "", ")\n}\n");
    return text;
  }
  const auto merged = [&](const char* name, int rows, int cols, const char* permutation) {
    return absl::StrCat("  %", name, "m = transpose(%", name, "), permutation=", permutation,
                        " : f32[", x.b, ",", rows, ",", x.h, ",", cols, "]\n");
  };
  absl::StrAppend(&text, merged("o", x.l, x.d, "{0,2,1,3}"), merged("dq", x.l, x.d, "{0,2,1,3}"),
                  merged("dk", x.s, x.d, "{0,3,1,2}"), merged("dv", x.s, x.d, "{0,2,1,3}"),
                  "  return (%om, %dqm, %dkm, %dvm", return_scores ? ", %s" : "", ")\n}\n");
  return text;
}

int CausalProducts(const Executable& executable) {
  int count = 0;
  for (const StepPlan& plan : executable.step_plans()) count += plan.dot.causal != nullptr ? 1 : 0;
  return count;
}

}  // namespace seam::cpu::testing
