"""``gemini``: Google's ``generateContent`` / ``streamGenerateContent`` wire format, on
the Gemini API and Vertex AI: requests read in chat-completions terms, responses (one
``GenerateContentResponse`` or a stream of them) read as chunks, error bodies coded.
"""

from ._adapter import GEMINI, Gemini

__all__ = ["GEMINI", "Gemini"]
