"""``gemini``: Google's ``generateContent`` / ``streamGenerateContent`` wire format, on
the Gemini API and Vertex AI: requests read in chat-completions terms, responses (one
``GenerateContentResponse`` or a stream of them) read as chunks, error bodies coded;
and chat-completions requests written as Gemini bodies (`request_body`, `request_path`).
"""

from ._adapter import GEMINI, Gemini
from ._write import request_body, request_path

__all__ = ["GEMINI", "Gemini", "request_body", "request_path"]
