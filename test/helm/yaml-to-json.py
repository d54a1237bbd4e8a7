"""Reads rendered manifests (multi-document YAML) on stdin and prints them as one JSON array.

The chart tests parse `helm template` output with this rather than a YAML package for
Node: PyYAML is already installed with kubernetes-validate (test/helm/requirements.txt).
"""
import json
import sys

import yaml

documents = [doc for doc in yaml.safe_load_all(sys.stdin) if doc is not None]
json.dump(documents, sys.stdout)
