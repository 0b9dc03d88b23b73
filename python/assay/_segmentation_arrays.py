"""Segmentation measures on numpy arrays (placeholder)."""
__all__ = []
