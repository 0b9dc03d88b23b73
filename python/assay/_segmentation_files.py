"""Segmentation on NIfTI files (placeholder)."""
__all__ = []
