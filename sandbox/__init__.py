"""Voqalize Sandbox: a mini Voqalize in your terminal."""

__version__ = "0.1.0"
