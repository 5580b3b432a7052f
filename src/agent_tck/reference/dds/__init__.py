"""The reference agent over DDS (Eclipse Cyclone DDS): `serve` it, `ask` it.

Wire contract in `agent_tck.wire` (named `reference.dds.types` here); the service in
`reference.dds.service`; the client in `reference.dds.client`; command lines in
`reference.dds.cli`. Importing this package does not
import Cyclone DDS, so the rest of the reference works without it.
"""
