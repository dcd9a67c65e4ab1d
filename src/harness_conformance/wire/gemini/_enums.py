"""Vertex AI's integer enums: what each number in a ``GenerateContentResponse`` names.

A Vertex AI client that asks for ``$alt=json;enum-encoding=int`` (the Google Cloud
client libraries' REST transports do) gets every enum as its number:
``"finishReason": 1`` where a plain request gets ``"finishReason": "STOP"``. The reader
turns each number back into the name the string form carries, so both forms read
alike. The numbers are those of the Vertex AI v1 protos (``google.cloud.aiplatform.v1``):

- ``Candidate.FinishReason``, ``HarmCategory``, ``SafetyRating.HarmProbability``,
  ``SafetyRating.HarmSeverity`` and ``Modality`` in
  ``google/cloud/aiplatform/v1/content.proto``;
- ``GenerateContentResponse.PromptFeedback.BlockedReason`` and
  ``GenerateContentResponse.UsageMetadata.TrafficType`` in
  ``google/cloud/aiplatform/v1/prediction_service.proto``.

They were read from the Python types generated from those protos in
google-cloud-sdk-unofficial/google-cloud-sdk at commit
4c7a7af4d4089b5c131e3cf017d78553978eccce
(``lib/googlecloudsdk/generated_clients/gapic_clients/aiplatform_v1/types/content.py``
and ``…/prediction_service.py``), the newest copy found; the older copies of the protos
in googleapis/googleapis (``content.proto`` at 07b069bfb0f49d0e95097ac1811c99fc7ad6d3f4,
``usage_metadata.proto`` at 0830bd94ddc5a0dc7b8b6132d58f3997b40aac9f) agree on every
number they have, while googleapis/python-aiplatform's generated v1 types at
39595265bd96e22eef69ae9cf9b07504852bcbbf give ``BlockedReason.JAILBREAK`` as 6 and have
no ``IMAGE_SAFETY``; the tables follow the newest copy. A member added after it is a
number these tables do not know, and the reader refuses it, naming field and number.

The Gemini API (``google.ai.generativelanguage``) numbers several of these enums
differently (its finish reasons, for one, have ``LANGUAGE`` and no ``MODEL_ARMOR``);
these tables are Vertex AI's only, so a number is read as Vertex AI means it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "BLOCKED_REASON",
    "BY_FIELD",
    "FINISH_REASON",
    "HARM_CATEGORY",
    "HARM_PROBABILITY",
    "HARM_SEVERITY",
    "MODALITY",
    "TRAFFIC_TYPE",
    "enum_name",
]

FINISH_REASON: Mapping[int, str] = MappingProxyType(
    {
        0: "FINISH_REASON_UNSPECIFIED",
        1: "STOP",
        2: "MAX_TOKENS",
        3: "SAFETY",
        4: "RECITATION",
        5: "OTHER",
        6: "BLOCKLIST",
        7: "PROHIBITED_CONTENT",
        8: "SPII",
        9: "MALFORMED_FUNCTION_CALL",
        10: "MODEL_ARMOR",
        11: "IMAGE_SAFETY",
        12: "IMAGE_PROHIBITED_CONTENT",
        13: "IMAGE_RECITATION",
        14: "IMAGE_OTHER",
        15: "UNEXPECTED_TOOL_CALL",
        16: "NO_IMAGE",
    }
)
"""``Candidate.FinishReason``."""

BLOCKED_REASON: Mapping[int, str] = MappingProxyType(
    {
        0: "BLOCKED_REASON_UNSPECIFIED",
        1: "SAFETY",
        2: "OTHER",
        3: "BLOCKLIST",
        4: "PROHIBITED_CONTENT",
        5: "MODEL_ARMOR",
        6: "IMAGE_SAFETY",
        7: "JAILBREAK",
    }
)
"""``GenerateContentResponse.PromptFeedback.BlockedReason``."""

TRAFFIC_TYPE: Mapping[int, str] = MappingProxyType(
    {
        0: "TRAFFIC_TYPE_UNSPECIFIED",
        1: "ON_DEMAND",
        2: "PROVISIONED_THROUGHPUT",
        3: "ON_DEMAND_PRIORITY",
        4: "ON_DEMAND_FLEX",
    }
)
"""``GenerateContentResponse.UsageMetadata.TrafficType``."""

MODALITY: Mapping[int, str] = MappingProxyType(
    {
        0: "MODALITY_UNSPECIFIED",
        1: "TEXT",
        2: "IMAGE",
        3: "VIDEO",
        4: "AUDIO",
        5: "DOCUMENT",
    }
)
"""``Modality``, of each ``ModalityTokenCount`` in the usage's token details."""

HARM_CATEGORY: Mapping[int, str] = MappingProxyType(
    {
        0: "HARM_CATEGORY_UNSPECIFIED",
        1: "HARM_CATEGORY_HATE_SPEECH",
        2: "HARM_CATEGORY_DANGEROUS_CONTENT",
        3: "HARM_CATEGORY_HARASSMENT",
        4: "HARM_CATEGORY_SEXUALLY_EXPLICIT",
        5: "HARM_CATEGORY_CIVIC_INTEGRITY",
        6: "HARM_CATEGORY_IMAGE_HATE",
        7: "HARM_CATEGORY_IMAGE_DANGEROUS_CONTENT",
        8: "HARM_CATEGORY_IMAGE_HARASSMENT",
        9: "HARM_CATEGORY_IMAGE_SEXUALLY_EXPLICIT",
        10: "HARM_CATEGORY_JAILBREAK",
    }
)
"""``HarmCategory``, the ``category`` of a safety rating."""

HARM_PROBABILITY: Mapping[int, str] = MappingProxyType(
    {0: "HARM_PROBABILITY_UNSPECIFIED", 1: "NEGLIGIBLE", 2: "LOW", 3: "MEDIUM", 4: "HIGH"}
)
"""``SafetyRating.HarmProbability``, the ``probability`` of a safety rating."""

HARM_SEVERITY: Mapping[int, str] = MappingProxyType(
    {
        0: "HARM_SEVERITY_UNSPECIFIED",
        1: "HARM_SEVERITY_NEGLIGIBLE",
        2: "HARM_SEVERITY_LOW",
        3: "HARM_SEVERITY_MEDIUM",
        4: "HARM_SEVERITY_HIGH",
    }
)
"""``SafetyRating.HarmSeverity``, the ``severity`` of a safety rating."""

BY_FIELD: Mapping[str, Mapping[int, str]] = MappingProxyType(
    {
        "finishReason": FINISH_REASON,
        "blockReason": BLOCKED_REASON,
        "trafficType": TRAFFIC_TYPE,
        "modality": MODALITY,
        "category": HARM_CATEGORY,
        "probability": HARM_PROBABILITY,
        "severity": HARM_SEVERITY,
    }
)
"""The table of each enum field the reader reads, by its JSON name."""


def enum_name(field: str, number: int | float) -> str | None:
    """The name ``number`` stands for in the enum of ``field`` (a key of `BY_FIELD`),
    or None when it names no member. JSON has one number type, so ``1.0`` is ``1``."""
    if isinstance(number, float):
        if not number.is_integer():
            return None
        number = int(number)
    return BY_FIELD[field].get(number)
