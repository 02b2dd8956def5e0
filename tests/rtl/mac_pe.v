// mac_pe: INT8 multiply-accumulate processing element (reference RTL for Strata).
//
// Accumulates a*b (signed 8x8 -> signed 32-bit, two's-complement wrap) for each
// fired input beat (in_valid && in_ready). When the beat with in_last fires at
// cycle t, out_valid is 1 from cycle t+1 with out_data = sum of all beats of the
// dot product (including the last) until the result fires (out_valid && out_ready).
// in_ready = !(out_valid && !out_ready): combinational from out_ready. A new dot
// product may start in the cycle the result fires; the accumulator restarts from
// 0 after every last beat. Reset: rst_n active low, synchronous.
//
// Mutations (for a mutation test; neither defined = the real design):
//   MUTATE_DATAPATH: bit 0 of out_data is inverted (accumulator read-out bit),
//                    so every result value is off in bit 0; timing unchanged.
//   MUTATE_TIMING:   the result becomes valid one cycle late (t+2 instead of
//                    t+1); in_ready is also 0 in that extra cycle. Values
//                    unchanged.
module mac_pe (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               in_valid,
    output wire               in_ready,
    input  wire signed [7:0]  a,
    input  wire signed [7:0]  b,
    input  wire               in_last,
    output reg                out_valid,
    input  wire               out_ready,
    output wire signed [31:0] out_data
);
    reg  signed [31:0] acc;
    reg  signed [31:0] result;

    wire signed [15:0] prod     = a * b;
    wire signed [31:0] sum      = acc + {{16{prod[15]}}, prod};
    wire               in_fire  = in_valid && in_ready;
    wire               out_fire = out_valid && out_ready;
    wire               fin      = in_fire && in_last;

`ifdef MUTATE_TIMING
    // Result held back one extra cycle before out_valid rises.
    reg fin_d;
    always @(posedge clk) fin_d <= rst_n && fin;
    wire set_valid = fin_d;
    wire stall     = fin_d;
`else
    wire set_valid = fin;
    wire stall     = 1'b0;
`endif

    assign in_ready = !(out_valid && !out_ready) && !stall;

`ifdef MUTATE_DATAPATH
    assign out_data = {result[31:1], ~result[0]};
`else
    assign out_data = result;
`endif

    always @(posedge clk) begin
        if (!rst_n) begin
            acc       <= 32'sd0;
            result    <= 32'sd0;
            out_valid <= 1'b0;
        end else begin
            if (in_fire)
                acc <= in_last ? 32'sd0 : sum;
            if (fin)
                result <= sum;
            if (set_valid)
                out_valid <= 1'b1;
            else if (out_fire)
                out_valid <= 1'b0;
        end
    end
endmodule
