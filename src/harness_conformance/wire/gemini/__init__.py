"""``gemini``: Google's ``generateContent`` / ``streamGenerateContent`` wire format, on
the Gemini API and Vertex AI: requests read in chat-completions terms, responses (one
``GenerateContentResponse`` or a stream of them) read as chunks, error bodies coded;
and chat-completions requests written as Gemini bodies (`request_body`, `request_path`);
`split_base_url` reads a base URL as google-genai takes it.
"""

from ._adapter import GEMINI, GEMINI_API_VERSION, Gemini, split_base_url
from ._write import request_body, request_path

__all__ = [
    "GEMINI",
    "GEMINI_API_VERSION",
    "Gemini",
    "request_body",
    "request_path",
    "split_base_url",
]

# The module users import these from, where pickle finds them too.
for _cls in (Gemini,):
    _cls.__module__ = __name__
del _cls
