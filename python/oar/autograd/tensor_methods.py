"""The autograd methods of Tensor written in Python: x.backward() and x.register_hook(hook), which
returns a handle whose remove() takes the hook off again."""
__all__ = ["backward", "register_hook", "HookHandle"]


class HookHandle:
    def __init__(self, tensor, hook_id):
        self._tensor, self._id = tensor, hook_id

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self._id)
            self._tensor = None
        return True


def backward(self, grad_tensor=None, retain_graph=False):
    self._backward(grad_tensor, retain_graph)


def register_hook(self, hook):
    return HookHandle(self, self._register_hook(hook))
