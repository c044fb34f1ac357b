"""A key-value cache for the sampling loop that writes each new token into room reserved ahead.

transformers' ``DynamicCache`` concatenates every layer's whole cache with each new token, so a reply of
``n`` tokens copies the cache ``n`` times; on a small model that copy is a tenth of the sampling time. Here
each layer keeps its keys and values in buffers with room for the reply, writes a new token in place and
hands attention a view of the filled part: the same tensors, no copy.
"""

from typing import Any


def reserved_cache(model: Any, room: int) -> Any:
    """A cache for ``model`` with room for ``room`` tokens after the first forward pass, or None (the model's own).

    It needs transformers 5 (per-layer caches; OAT's GPU stack pins 4.51) and a model whose layers all
    attend to the whole sequence (sliding-window layers keep their own cache type); otherwise None.
    """
    import transformers

    if int(transformers.__version__.split(".")[0]) < 5:
        return None
    from transformers.cache_utils import Cache, DynamicCache, DynamicLayer

    layers = DynamicCache(config=model.config).layers
    if not layers or any(type(layer) is not DynamicLayer for layer in layers):
        return None
    return Cache(layers=[ReservedLayer(room) for _ in layers])


def _dynamic_layer() -> type:
    try:
        from transformers.cache_utils import DynamicLayer
    except ImportError:  # transformers 4: reserved_cache gives None, so the class is never built
        return object
    return DynamicLayer


_DynamicLayer: Any = _dynamic_layer()  # chosen at import, so its type is known at run time only


class ReservedLayer(_DynamicLayer):
    """One layer's keys and values, ``(batch, heads, tokens, head size)``, as views of buffers with room ahead.

    The buffers are sized at the first update (its tokens plus ``room``) and doubled should a reply
    outgrow them. Only what the sampling loop calls keeps the buffers in step: ``update``,
    ``batch_select_indices`` and the length queries.
    """

    def __init__(self, room: int) -> None:
        super().__init__()
        self.room = room
        self.length = 0

    def update(self, key_states: Any, value_states: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        end = self.length + key_states.shape[-2]
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
            self.key_buffer = self._buffer(key_states[..., :0, :], end + self.room)
            self.value_buffer = self._buffer(value_states[..., :0, :], end + self.room)
        elif end > self.key_buffer.shape[-2]:
            self.key_buffer = self._buffer(self.keys, 2 * end)
            self.value_buffer = self._buffer(self.values, 2 * end)
        self.key_buffer[..., self.length : end, :] = key_states
        self.value_buffer[..., self.length : end, :] = value_states
        self.length = end
        self._expose()
        return self.keys, self.values

    def batch_select_indices(self, indices: Any) -> None:
        if self.is_initialized:  # the filled part only: the room ahead holds nothing yet
            size = self.key_buffer.shape[-2]
            self.key_buffer, self.value_buffer = (
                self._buffer(self.keys[indices], size),
                self._buffer(self.values[indices], size),
            )
            self._expose()

    def _expose(self) -> None:
        self.keys = self.key_buffer[..., : self.length, :]
        self.values = self.value_buffer[..., : self.length, :]

    @staticmethod
    def _buffer(filled: Any, size: int) -> Any:
        """A buffer of ``size`` tokens that starts with ``filled``."""
        buffer = filled.new_empty((*filled.shape[:-2], size, filled.shape[-1]))
        buffer[..., : filled.shape[-2], :] = filled
        return buffer
