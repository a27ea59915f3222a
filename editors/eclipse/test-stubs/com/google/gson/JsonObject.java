// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package com.google.gson;

public final class JsonObject extends JsonElement {
  private final java.util.Map<String, JsonElement> members = new java.util.LinkedHashMap<>();
  public boolean has(String k) { return members.containsKey(k); }
  public JsonElement get(String k) { return members.get(k); }
  public void add(String k, JsonElement v) { members.put(k, v); }
}
