"""Voqalize Sandbox: a mini Voqalize in your terminal."""

from pkgutil import extend_path

# One package, two distributions: voqalize-sdk ships the SDK, the wire and the leaves under
# them (sdk/sandbox/ in a checkout), this one the rest. Installed side by side they share one
# folder; apart (a checkout, an editable install), each `sandbox` folder on the path adds its
# modules, so `from sandbox.sdk import Brain` is the same import either way.
__path__ = extend_path(__path__, __name__)

__version__ = "0.1.0"
