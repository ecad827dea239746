import os
import sys

# Lets test modules import _util regardless of how pytest is invoked.
sys.path.insert(0, os.path.dirname(__file__))
