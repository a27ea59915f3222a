// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package com.google.gson;

public abstract class JsonElement {
  public boolean getAsBoolean() { throw new UnsupportedOperationException(); }
  public int getAsInt() { throw new UnsupportedOperationException(); }
  public String getAsString() { throw new UnsupportedOperationException(); }
  public boolean isJsonArray() { return this instanceof JsonArray; }
  public JsonArray getAsJsonArray() { return (JsonArray) this; }
}
