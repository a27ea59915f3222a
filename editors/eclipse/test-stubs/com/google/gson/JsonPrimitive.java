// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package com.google.gson;

public final class JsonPrimitive extends JsonElement {
  private final Object value;
  public JsonPrimitive(Object value) { this.value = value; }
  public boolean getAsBoolean() { return (Boolean) value; }
  public int getAsInt() { return ((Number) value).intValue(); }
  public String getAsString() { return String.valueOf(value); }
}
