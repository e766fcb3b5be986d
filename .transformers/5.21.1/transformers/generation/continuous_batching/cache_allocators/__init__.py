from .cache_allocator import CacheAllocator
from .cache_pool import CachePool
from .full_attention import FullAttentionCacheAllocator
from .sliding_attention import SlidingAttentionCacheAllocator


# Attention types
FULL_ATTENTION = FullAttentionCacheAllocator.layer_type
SLIDING_ATTENTION = SlidingAttentionCacheAllocator.layer_type


__all__ = [
    "FullAttentionCacheAllocator",
    "SlidingAttentionCacheAllocator",
    "CacheAllocator",
    "CachePool",
]
