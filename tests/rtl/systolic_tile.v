// systolic_tile: N x N output-stationary systolic array tile (reference RTL for
// Strata). See README.md in this directory for the interface and exact timing.
//
// Dataflow: each fired A/B pair k enters the array through input skew registers
// (row i of A is delayed i cycles, column j of B is delayed j cycles), so PE(i,j)
// sees A[i][k] and B[k][j] at cycle t_k + i + j. A values (with valid and last
// bits) move right through PE registers, B values (with valid) move down. Each
// PE keeps its C[i][j] in a local accumulator (output stationary). When the last
// beat reaches PE(N-1,N-1) (cycle t_last + 2N - 2) the drain starts: c_data shows
// the accumulators of PE row 0, and each fired output beat shifts every
// accumulator column up by one PE (zeros enter at the bottom), so after N beats
// the array is cleared for the next tile.
//
// Mutations (for a mutation test; neither defined = the real design):
//   MUTATE_DATAPATH: PE(0,0) reads out its accumulator with bit 0 inverted, so
//                    c_data[0] (column 0) of every row is wrong; timing unchanged.
//   MUTATE_TIMING:   the drain starts one cycle late (every output row, c_last
//                    and the return of a_ready/b_ready move one cycle later);
//                    values unchanged.

// The helper modules (skew line, PE cell) live in this file next to the tile so
// the tile is one self-contained source; hence the DECLFILENAME waiver.
/* verilator lint_off DECLFILENAME */

// ---------------------------------------------------------------------------
// Fixed-depth delay line (input skew register). DEPTH = 0 is a plain wire.
// ---------------------------------------------------------------------------
module systolic_skew #(
    parameter W     = 8,
    parameter DEPTH = 0
) (
    input  wire         clk,
    input  wire         rst_n,
    input  wire [W-1:0] d,
    output wire [W-1:0] q
);
    generate
        if (DEPTH == 0) begin : g_wire
            // Row/column 0 has no skew; clk and rst_n are then not needed.
            /* verilator lint_off UNUSED */
            wire unused_ok = ^{clk, rst_n};
            /* verilator lint_on UNUSED */
            assign q = d;
        end else begin : g_regs
            reg [W-1:0] stage [0:DEPTH-1];
            integer s;
            always @(posedge clk) begin
                if (!rst_n) begin
                    for (s = 0; s < DEPTH; s = s + 1)
                        stage[s] <= {W{1'b0}};
                end else begin
                    stage[0] <= d;
                    for (s = 1; s < DEPTH; s = s + 1)
                        stage[s] <= stage[s-1];
                end
            end
            assign q = stage[DEPTH-1];
        end
    endgenerate
endmodule

// ---------------------------------------------------------------------------
// Output-stationary PE cell: registered A/B forwarding, local accumulator,
// shift-up drain.
// ---------------------------------------------------------------------------
module systolic_pe #(
    parameter FLIP_ACC_LSB = 0   // 1 only in the MUTATE_DATAPATH build, PE(0,0)
) (
    input  wire               clk,
    input  wire               rst_n,
    // from the left: A value with its valid and last bits
    input  wire signed [7:0]  a_in,
    input  wire               a_vld_in,
    input  wire               a_last_in,
    // from above: B value with its valid bit
    input  wire signed [7:0]  b_in,
    input  wire               b_vld_in,
    // to the right / below (one register stage)
    output reg  signed [7:0]  a_out,
    output reg                a_vld_out,
    output reg                a_last_out,
    output reg  signed [7:0]  b_out,
    output reg                b_vld_out,
    // drain: on shift_en the accumulator loads the one of the PE below
    input  wire               shift_en,
    input  wire [31:0]        acc_shift_in,
    output wire [31:0]        acc_out
);
    reg  [31:0]        acc;
    wire signed [15:0] prod = a_in * b_in;
    wire               mac  = a_vld_in && b_vld_in;

    always @(posedge clk) begin
        if (!rst_n) begin
            acc        <= 32'd0;
            a_out      <= 8'sd0;
            a_vld_out  <= 1'b0;
            a_last_out <= 1'b0;
            b_out      <= 8'sd0;
            b_vld_out  <= 1'b0;
        end else begin
            a_out      <= a_in;
            a_vld_out  <= a_vld_in;
            a_last_out <= a_last_in;
            b_out      <= b_in;
            b_vld_out  <= b_vld_in;
            // Never both in one cycle: the drain starts only after the last
            // MAC of the tile, and no new beat enters until the drain is done.
            if (shift_en)
                acc <= acc_shift_in;
            else if (mac)
                acc <= acc + {{16{prod[15]}}, prod};
        end
    end

    generate
        if (FLIP_ACC_LSB != 0) begin : g_flip
            assign acc_out = {acc[31:1], ~acc[0]};
        end else begin : g_plain
            assign acc_out = acc;
        end
    endgenerate
endmodule

// ---------------------------------------------------------------------------
// The tile.
// ---------------------------------------------------------------------------
module systolic_tile #(
    parameter N = 4
) (
    input  wire            clk,
    input  wire            rst_n,
    input  wire            a_valid,
    output wire            a_ready,
    input  wire [N*8-1:0]  a_data,
    input  wire            a_last,
    input  wire            b_valid,
    output wire            b_ready,
    input  wire [N*8-1:0]  b_data,
    output reg             c_valid,
    input  wire            c_ready,
    output wire [N*32-1:0] c_data,
    output wire            c_last
);
    localparam integer RW       = (N > 1) ? $clog2(N) : 1;
    localparam integer LAST_I   = N - 1;
    localparam [RW-1:0] LAST_ROW = LAST_I[RW-1:0];

`ifdef MUTATE_DATAPATH
    localparam integer FLIP00 = 1;
`else
    localparam integer FLIP00 = 0;
`endif

    // ---------------- control ----------------
    reg          accepting;
    reg [RW-1:0] row;          // output row currently on c_data

    assign a_ready = accepting && b_valid;
    assign b_ready = accepting && a_valid;

    wire in_fire  = a_valid && b_valid && accepting;
    wire c_fire   = c_valid && c_ready;
    wire row_last = (row == LAST_ROW);
    assign c_last = c_valid && row_last;

    // ---------------- interconnect ----------------
    // Horizontal (A) links: index i*(N+1)+j is the input of PE(i,j); j = N is
    // the output of the last column (unused). Vertical (B) links: index
    // i*N+j is the input of PE(i,j); i = N is the output of the last row.
    wire [7:0]  ah     [0:N*(N+1)-1];
    wire        ah_v   [0:N*(N+1)-1];
    wire        ah_l   [0:N*(N+1)-1];
    wire [7:0]  bv     [0:(N+1)*N-1];
    wire        bv_v   [0:(N+1)*N-1];
    wire [31:0] acc    [0:(N+1)*N-1];   // acc of PE(i,j) at i*N+j; row N = 0

    genvar i, j;
    generate
        // input skew registers
        for (i = 0; i < N; i = i + 1) begin : g_askew
            wire [9:0] q;
            systolic_skew #(.W(10), .DEPTH(i)) u_skew (
                .clk(clk), .rst_n(rst_n),
                .d({in_fire, in_fire && a_last, a_data[i*8 +: 8]}),
                .q(q));
            assign ah_v[i*(N+1)] = q[9];
            assign ah_l[i*(N+1)] = q[8];
            assign ah  [i*(N+1)] = q[7:0];
        end
        for (j = 0; j < N; j = j + 1) begin : g_bskew
            wire [8:0] q;
            systolic_skew #(.W(9), .DEPTH(j)) u_skew (
                .clk(clk), .rst_n(rst_n),
                .d({in_fire, b_data[j*8 +: 8]}),
                .q(q));
            assign bv_v[j] = q[8];
            assign bv  [j] = q[7:0];
            assign acc[N*N + j] = 32'd0;           // zeros shift in at the bottom
            assign c_data[j*32 +: 32] = acc[j];    // row 0 is the output row
        end
        // PE grid
        for (i = 0; i < N; i = i + 1) begin : g_row
            for (j = 0; j < N; j = j + 1) begin : g_col
                systolic_pe #(.FLIP_ACC_LSB((i == 0 && j == 0) ? FLIP00 : 0)) u_pe (
                    .clk(clk), .rst_n(rst_n),
                    .a_in(ah[i*(N+1)+j]), .a_vld_in(ah_v[i*(N+1)+j]),
                    .a_last_in(ah_l[i*(N+1)+j]),
                    .b_in(bv[i*N+j]), .b_vld_in(bv_v[i*N+j]),
                    .a_out(ah[i*(N+1)+j+1]), .a_vld_out(ah_v[i*(N+1)+j+1]),
                    .a_last_out(ah_l[i*(N+1)+j+1]),
                    .b_out(bv[(i+1)*N+j]), .b_vld_out(bv_v[(i+1)*N+j]),
                    .shift_en(c_fire),
                    .acc_shift_in(acc[(i+1)*N+j]),
                    .acc_out(acc[i*N+j]));
            end
        end
    endgenerate

    // The last beat is at PE(N-1,N-1)'s input (and is accumulated) at cycle
    // t_last + 2N - 2; the drain's first row is valid from the next cycle.
    wire fin = ah_v[(N-1)*(N+1)+N-1] && ah_l[(N-1)*(N+1)+N-1];

`ifdef MUTATE_TIMING
    reg fin_d;
    always @(posedge clk) fin_d <= rst_n && fin;
    wire start_drain = fin_d;
`else
    wire start_drain = fin;
`endif

    always @(posedge clk) begin
        if (!rst_n) begin
            accepting <= 1'b1;
            c_valid   <= 1'b0;
            row       <= {RW{1'b0}};
        end else begin
            if (in_fire && a_last)
                accepting <= 1'b0;
            else if (c_fire && row_last)
                accepting <= 1'b1;

            if (start_drain)
                c_valid <= 1'b1;
            else if (c_fire && row_last)
                c_valid <= 1'b0;

            if (c_fire)
                row <= row_last ? {RW{1'b0}} : row + 1'b1;
        end
    end

    // Outputs of the last PE column / row are not consumed by anything.
    /* verilator lint_off UNUSED */
    wire unused_ok;
    /* verilator lint_on UNUSED */
    generate
        if (1) begin : g_unused
            wire [N-1:0] r;
            for (i = 0; i < N; i = i + 1) begin : g_u
                assign r[i] = ^{ah[i*(N+1)+N], ah_v[i*(N+1)+N], ah_l[i*(N+1)+N],
                                bv[N*N+i], bv_v[N*N+i]};
            end
            assign unused_ok = ^r;
        end
    endgenerate
endmodule

/* verilator lint_on DECLFILENAME */
