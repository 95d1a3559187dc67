"""seam.optim: torch.optim's SGD, Adam and AdamW over seam's C++ optimizers.

step() feeds each parameter's accumulated .grad to the C++ update, which records the new
values lazily (they run at the next seam.sync()). A parameter whose .grad is None is
skipped, as in PyTorch (no update, no weight decay or momentum, its Adam step count stays).
"""

import operator

from . import _C
from ._errors import InvalidArgumentError
from ._autograd import enable_grad, no_grad


def _tuple_getter(names):
    """group -> tuple(group[name] for name in names), by a C-level itemgetter."""
    if len(names) > 1:
        return operator.itemgetter(*names)
    if len(names) == 1:
        getter = operator.itemgetter(names[0])
        return lambda group: (getter(group),)
    return lambda group: ()


class Optimizer:
    _hyper = ()

    def __init__(self, params, defaults):
        params = list(params)
        if not params:
            raise InvalidArgumentError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.defaults = dict(defaults)
        self.param_groups = []
        self._impls = []
        self._pushed = {}
        for g in groups:
            group = dict(self.defaults)
            group.update(g)
            group["params"] = list(group["params"])
            for p in group["params"]:
                if not isinstance(p, _C.Tensor):
                    raise InvalidArgumentError(
                        f"optimizer: a parameter is a {type(p).__name__}, not a seam tensor"
                    )
            self.param_groups.append(group)
            self._impls.append(self._make(group))
        self._params_at_start = [g["params"] for g in self.param_groups]
        self._hyper_values = _tuple_getter(self._hyper)

    def _make(self, group):
        raise NotImplementedError

    def _push(self, impl, group):
        # Only what changed since the last push (a scheduler may set group["lr"]): the
        # per-step cost of this check is part of the Python step's overhead, so the values
        # are read by one C-level itemgetter, not a generator.
        values = self._hyper_values(group)
        if values == self._pushed.get(id(impl)):
            return
        for name, value in zip(self._hyper, values):
            setattr(impl, name, value)
        self._pushed[id(impl)] = values

    def step(self, closure=None, data_parallel=None):
        """One update from the parameters' .grad. With `data_parallel` (a seam.DataParallel)
        each gradient is first averaged over its replicas inside the step's program
        (torch_xla's xm.optimizer_step), so every replica applies the same update."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        if data_parallel is not None:
            with no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.grad = data_parallel.mean(p.grad)
        pushed, values_of = self._pushed, self._hyper_values
        for impl, group in zip(self._impls, self.param_groups):
            # _push inlined for the common case (nothing changed): one frame less per step.
            if values_of(group) != pushed.get(id(impl)):
                self._push(impl, group)
            impl.step()
        return loss

    def zero_grad(self, set_to_none=True):
        groups, start = self.param_groups, self._params_at_start
        # One group that kept its list (the common case) is checked inline: a call here costs
        # more than the clearing it guards.
        if set_to_none and (
                groups[0]["params"] is start[0] if len(groups) == 1 == len(start)
                else self._groups_unchanged()):
            for impl in self._impls:
                impl.clear_grads()
            return
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none or p.grad is None:
                    p.grad = None
                else:
                    p.grad = _C.zeros(list(p.shape), p.dtype)

    def _groups_unchanged(self):
        """Whether every group still holds the parameter list the C++ optimizers were made
        for (a plain loop: a generator here costs more than the call it guards)."""
        groups, start = self.param_groups, self._params_at_start
        if len(groups) != len(start):
            return False
        for group, params in zip(groups, start):
            if group["params"] is not params:
                return False
        return True

    def state_dict(self):
        """The C++ optimizer's state by PyTorch's names ("state.<i>.exp_avg",
        "param_groups.0.lr", ...; one parameter group)."""
        if len(self._impls) != 1:
            raise InvalidArgumentError("state_dict: supported for one parameter group")
        self._push(self._impls[0], self.param_groups[0])
        return self._impls[0].state_dict()

    def load_state_dict(self, state_dict):
        if len(self._impls) != 1:
            raise InvalidArgumentError("load_state_dict: supported for one parameter group")
        self._impls[0].load_state_dict(dict(state_dict))
        for name in self._hyper:
            self.param_groups[0][name] = getattr(self._impls[0], name)


class SGD(Optimizer):
    """p -= lr * v, v = momentum * v + (g + weight_decay * p) (torch.optim.SGD without
    dampening or Nesterov)."""

    _hyper = ("lr", "momentum", "weight_decay")

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False):
        if dampening != 0 or nesterov:
            raise InvalidArgumentError("SGD: dampening and nesterov are not supported")
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay))

    def _make(self, group):
        return _C.optim.SGD(group["params"], group["lr"], group["momentum"],
                            group["weight_decay"])


class Adam(Optimizer):
    _hyper = ("lr", "betas", "eps", "weight_decay")
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=None,
                 amsgrad=False, capturable=False):
        if amsgrad:
            raise InvalidArgumentError(f"{type(self).__name__}: amsgrad is not supported")
        if weight_decay is None:
            weight_decay = 1e-2 if self._decoupled else 0.0
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, capturable=capturable))

    def _make(self, group):
        b1, b2 = group["betas"]
        return _C.optim.Adam(group["params"], group["lr"], b1, b2, group["eps"],
                             group["weight_decay"], group["capturable"], self._decoupled)


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2), torch.optim.AdamW."""

    _decoupled = True
